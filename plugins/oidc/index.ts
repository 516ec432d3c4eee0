import { coreRefs, definePlugin, delegate } from '../../core/index.ts';
import { keysExtensions } from '../keys/api.ts';
import { orgsRefs } from '../orgs/api.ts';
import { purgeExpiredPayloads } from './adapter.ts';
import { AerieAccountSignIn } from './aerie-account.ts';
import { EndUserConsents } from './end-user-consents.ts';
import { EndUserPasskeys } from './end-user-passkeys.ts';
import { HostedLogin } from './hosted-login.ts';
import { oidcInternalRefs } from './internal-refs.ts';
import { LoginCodes } from './login-codes.ts';
import { OwnerGate } from './owner-gate.ts';
import { ProviderContext } from './provider-context.ts';
import { OrgProviders } from './providers.ts';
import { SdkSignIn } from './sdk-sign-in.ts';
import { SocialConnections } from './social-connections.ts';
import { SocialFlows } from './social-flows.ts';
import { SocialSignIn } from './social-sign-in.ts';
import { aerieAccountRoutes } from './routes/aerie-account.route.ts';
import { loginRoutes } from './routes/login.route.ts';
import { ownerGateRoutes } from './routes/owner-gate.route.ts';
import { providerRoutes } from './routes/provider.route.ts';
import { sdkRoutes } from './routes/sdk.route.ts';
import { socialRoutes } from './routes/social.route.ts';
import './errors.ts';

/** The schedule that deletes expired provider rows, login codes, challenges, sign-ins and social flows, every 10 minutes. */
const SWEEP = 'oidc.sweep';
const refs = oidcInternalRefs;

export default definePlugin({
  id: 'oidc',
  deps: {
    config: coreRefs.config, db: coreRefs.db, clock: coreRefs.clock, jobs: coreRefs.jobs,
    orgs: orgsRefs.organizations,
    context: refs.providerContext, providers: refs.providers, login: refs.login, codes: refs.codes, passkeys: refs.passkeys, aerieAccount: refs.aerieAccount,
    socialConnections: refs.socialConnections, socialFlows: refs.socialFlows, social: refs.social, sdk: refs.sdk, ownerGate: refs.ownerGate,
  },
  register(reg) {
    reg.service(refs.providerContext, ProviderContext);
    reg.service(refs.providers, OrgProviders);
    reg.service(refs.codes, LoginCodes);
    reg.service(refs.passkeys, EndUserPasskeys);
    reg.service(refs.consents, EndUserConsents);
    reg.service(refs.aerieAccount, AerieAccountSignIn);
    reg.service(refs.socialConnections, SocialConnections);
    reg.service(refs.socialFlows, SocialFlows);
    reg.service(refs.login, HostedLogin);
    reg.service(refs.sdk, SdkSignIn);
    reg.service(refs.social, SocialSignIn);
    reg.service(refs.ownerGate, OwnerGate);
  },
  init({ config, db, clock, jobs, orgs, context, providers, login, codes, passkeys, aerieAccount, socialConnections, socialFlows, social, sdk, ownerGate }, ctx) {
    // The issuer's discovery document is the provider's (the keys plugin serves the route).
    ctx.extend(keysExtensions.issuerDiscovery, async (slug) => {
      const found = await providers.forSlug(slug);
      return found && found.org.slug === slug ? delegate(found.mountPath, found.handle) : undefined;
    });
    ctx.routes(...providerRoutes(providers, context), ...loginRoutes(login, config), ...aerieAccountRoutes(login, aerieAccount),
      ...ownerGateRoutes(ownerGate, { ...context, orgs }), ...sdkRoutes(sdk), ...socialRoutes(socialConnections, social));
    jobs.schedule(SWEEP, { everyMinutes: 10 }, async () => {
      await Promise.all([purgeExpiredPayloads(db, clock), codes.purge(), passkeys.purge(), sdk.purge(), socialFlows.purge()]);
    });
  },
});

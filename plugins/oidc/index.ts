import { coreRefs, definePlugin } from '../../core/index.ts';
import { accountsRefs } from '../accounts/api.ts';
import { appsRefs } from '../apps/api.ts';
import { endUsersRefs } from '../endusers/api.ts';
import { keysExtensions, keysRefs } from '../keys/api.ts';
import { orgsRefs } from '../orgs/api.ts';
import { purgeExpiredPayloads } from './adapter.ts';
import { HostedLogin } from './hosted-login.ts';
import { LoginCodes } from './login-codes.ts';
import { EndUserPasskeys } from './end-user-passkeys.ts';
import { AerieAccountSignIn } from './aerie-account.ts';
import { EndUserConsents } from './end-user-consents.ts';
import { aerieAccountRoutes } from './routes/aerie-account.route.ts';
import { OwnerGate } from './owner-gate.ts';
import { ownerGateRoutes } from './routes/owner-gate.route.ts';
import { SDK_STARTS_PER_IP, SdkSignIn } from './sdk-sign-in.ts';
import { sdkRoutes } from './routes/sdk.route.ts';
import { SocialConnections } from './social-connections.ts';
import { SocialSignIn } from './social-sign-in.ts';
import { socialRoutes } from './routes/social.route.ts';
import { OrgProviders } from './providers.ts';
import { loginRoutes } from './routes/login.route.ts';
import { providerRoutes } from './routes/provider.route.ts';
import { delegate } from '../../core/index.ts';
import './errors.ts';

/** The schedule that deletes expired provider rows, login codes, challenges and sign-ins, every 10 minutes. */
const SWEEP = 'oidc.sweep';

export default definePlugin({
  id: 'oidc',
  deps: {
    config: coreRefs.config, db: coreRefs.db, clock: coreRefs.clock, crypto: coreRefs.crypto, rateLimits: coreRefs.rateLimits,
    egress: coreRefs.egress, audit: coreRefs.audit, jobs: coreRefs.jobs,
    orgs: orgsRefs.organizations, signingKeys: keysRefs.signingKeys, applications: appsRefs.applications, appGroups: appsRefs.appGroups, marketplace: appsRefs.marketplace,
    signIn: endUsersRefs.signIn, accounts: accountsRefs.accounts,
  },
  init({ config, db, clock, crypto, rateLimits, egress, audit, jobs, orgs, signingKeys, applications, appGroups, marketplace, signIn, accounts }, ctx) {
    const { oidc } = ctx.pluginConfig<{ oidc: { providerCacheSize: number } }>();
    const aerieAccount = new AerieAccountSignIn(db, clock, accounts, orgs, signIn, marketplace, audit);
    const deps = {
      db, clock, crypto, signingKeys, applications, signIn, loginUrl: config.loginUrl, logger: ctx.logger,
      tenantOrgs: (orgId: string, appGroupId: string, endUserId: string) => aerieAccount.tenantOrgs(orgId, appGroupId, endUserId),
    };
    const providers = new OrgProviders({ ...deps, orgs }, oidc.providerCacheSize, config.http.trustProxy);
    const codes = new LoginCodes(db, clock, crypto, rateLimits);
    const passkeys = new EndUserPasskeys(db, clock);
    const upstream = egress.fetch({ timeoutMs: 10_000, maxResponseBytes: 256 * 1024 });
    const socialConnections = new SocialConnections(db, clock, crypto, upstream, audit, appGroups, config.loginUrl);
    const login = new HostedLogin(providers, orgs, applications, appGroups, signIn, codes, crypto, passkeys, {
      rpId: config.webauthn.rpId, loginOrigin: new URL(config.loginUrl).origin,
    }, aerieAccount, new EndUserConsents(db, clock, audit), (orgId, group) => socialConnections.offered(orgId, group));
    let sdk: SdkSignIn | undefined;
    const social = new SocialSignIn(db, clock, crypto, login, socialConnections, signIn, upstream, config.loginUrl, (id, groupId, endUserId, context) => sdk!.finishSocial(id, groupId, endUserId, context));
    // The issuer's discovery document is the provider's (the keys plugin serves the route).
    ctx.extend(keysExtensions.issuerDiscovery, async (slug) => {
      const found = await providers.forSlug(slug);
      return found && found.org.slug === slug ? delegate(found.mountPath, found.handle) : undefined;
    });
    sdk = new SdkSignIn(db, clock, crypto, providers, login, codes, signIn, orgs, rateLimits.limiter({ name: 'oidc.sdk-starts', ...SDK_STARTS_PER_IP }), passkeys, aerieAccount, social);
    ctx.routes(...providerRoutes(providers, deps), ...loginRoutes(login, config), ...aerieAccountRoutes(login, aerieAccount),
      ...ownerGateRoutes(new OwnerGate(deps, orgs, accounts, appGroups), { ...deps, orgs }),
      ...sdkRoutes(sdk), ...socialRoutes(socialConnections, social));
    jobs.schedule(SWEEP, { everyMinutes: 10 }, async () => {
      await Promise.all([purgeExpiredPayloads(db, clock), codes.purge(), passkeys.purge(), sdk.purge(), social.purge()]);
    });
  },
});

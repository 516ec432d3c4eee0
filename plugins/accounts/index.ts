import { coreExtensions, coreRefs, definePlugin } from '../../core/index.ts';
import { accountsExtensions, accountsRefs } from './api.ts';
import { internalRefs } from './internal-refs.ts';
import { AccountsService } from './accounts.service.ts';
import { SessionsService } from './sessions.service.ts';
import { EmailCodesService } from './email-codes.service.ts';
import { PasskeysRepository } from './passkeys.repository.ts';
import { WebauthnChallengesService } from './webauthn-challenges.service.ts';
import { ActivityLogService } from './activity-log.service.ts';
import { PasskeyRegistrationService } from './passkey-registration.service.ts';
import { PasskeySignInService } from './passkey-sign-in.service.ts';
import { PersonalSealsService } from './personal-seals.service.ts';
import { sessionAuthScheme } from './session.auth.ts';
import { cookieSessionAuthScheme } from './cookie-session.auth.ts';
import { emailSignInRoutes } from './routes/email-sign-in.route.ts';
import { meRoutes } from './routes/me.route.ts';
import { passkeyRoutes } from './routes/passkeys.route.ts';
import { passkeySignInRoutes } from './routes/passkey-sign-in.route.ts';
import { sealRoutes } from './routes/seals.route.ts';
import { activityLogRoutes } from './routes/activity-log.route.ts';
import { securityPageRoutes } from './routes/security-page.route.ts';
import { loginPageRoutes } from './routes/login-page.route.ts';
import { MeCache } from './me-cache.ts';
import { ACCOUNTS_SWEEP, sweepAccounts } from './sweep.ts';

export default definePlugin({
  id: 'accounts',
  deps: {
    db: coreRefs.db, config: coreRefs.config, clock: coreRefs.clock, events: coreRefs.events, seals: coreRefs.seals, jobs: coreRefs.jobs,
    accounts: accountsRefs.accounts, sessions: accountsRefs.sessions, personalSeals: accountsRefs.personalSeals, codes: internalRefs.emailCodes,
    passkeys: internalRefs.passkeys, activity: internalRefs.activityLog, registration: internalRefs.passkeyRegistration, signIn: internalRefs.passkeySignIn,
  },
  register(reg) {
    reg.service(accountsRefs.accounts, AccountsService);
    reg.service(accountsRefs.sessions, SessionsService);
    reg.service(accountsRefs.personalSeals, PersonalSealsService);
    reg.service(internalRefs.emailCodes, EmailCodesService);
    reg.service(internalRefs.passkeys, PasskeysRepository);
    reg.service(internalRefs.webauthnChallenges, WebauthnChallengesService);
    reg.service(internalRefs.activityLog, ActivityLogService);
    reg.service(internalRefs.passkeyRegistration, PasskeyRegistrationService);
    reg.service(internalRefs.passkeySignIn, PasskeySignInService);
  },
  init({ db, config, clock, events, seals, jobs, accounts, sessions, personalSeals, codes, passkeys, activity, registration, signIn }, ctx) {
    const cache = new MeCache();
    const subscriptions = ['org.membership.changed', 'account.updated'].map((type) =>
      events.on(type).subscribe((e) => cache.invalidate(String(e.payload.accountId))),
    );
    ctx.onShutdown(() => subscriptions.forEach((s) => s.unsubscribe()));
    jobs.schedule(ACCOUNTS_SWEEP, { everyMinutes: 10 }, async () => void (await sweepAccounts(db, clock)));
    ctx.authScheme(sessionAuthScheme(sessions));
    ctx.authScheme(cookieSessionAuthScheme(sessions, config));
    ctx.extend(coreExtensions.passkeys, passkeys);
    ctx.extend(accountsExtensions.me, async (accountId) => ({
      credentialIds: (await passkeys.rows(accountId)).map((p) => p.credentialId),
      personalSeal: await personalSeals.get(accountId),
    }));
    ctx.routes(
      ...emailSignInRoutes({ config, db, events, accounts, sessions, codes, activity }),
      ...meRoutes({ config, clock, accounts, sessions, cache, contributors: ctx.extensions(accountsExtensions.me) }),
      ...passkeyRoutes(registration, passkeys),
      ...passkeySignInRoutes(config, signIn, accounts),
      ...sealRoutes(personalSeals, seals),
      ...activityLogRoutes(activity),
      ...securityPageRoutes(),
      ...loginPageRoutes(),
    );
  },
});

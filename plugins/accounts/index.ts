import { coreRefs, createServiceRef, definePlugin } from '../../core/index.ts';
import { accountsExtensions, accountsRefs } from './api.ts';
import { AccountsService } from './accounts.service.ts';
import { SessionsService } from './sessions.service.ts';
import { EmailCodesService } from './email-codes.service.ts';
import { sessionAuthScheme } from './session.auth.ts';
import { emailSignInRoutes } from './routes/email-sign-in.route.ts';
import { meRoutes } from './routes/me.route.ts';
import { MeCache } from './me-cache.ts';

/** Internal to this plugin (not in api.ts). */
const emailCodesRef = createServiceRef<EmailCodesService>('accounts.emailCodes');

export default definePlugin({
  id: 'accounts',
  deps: {
    db: coreRefs.db, clock: coreRefs.clock, events: coreRefs.events,
    accounts: accountsRefs.accounts, sessions: accountsRefs.sessions, codes: emailCodesRef,
  },
  register(reg) {
    reg.service(accountsRefs.accounts, AccountsService);
    reg.service(accountsRefs.sessions, SessionsService);
    reg.service(emailCodesRef, EmailCodesService);
  },
  init({ db, clock, events, accounts, sessions, codes }, ctx) {
    const cache = new MeCache();
    const subscriptions = ['org.membership.changed', 'account.updated'].map((type) =>
      events.on(type).subscribe((e) => cache.invalidate(String(e.payload.accountId))),
    );
    ctx.onShutdown(() => subscriptions.forEach((s) => s.unsubscribe()));
    ctx.authScheme(sessionAuthScheme(sessions));
    ctx.routes(
      ...emailSignInRoutes({ db, events, accounts, sessions, codes }),
      ...meRoutes({ clock, accounts, sessions, cache, contributors: ctx.extensions(accountsExtensions.me) }),
    );
  },
});

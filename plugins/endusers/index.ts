import { coreRefs, definePlugin } from '../../core/index.ts';
import { endUsersRefs } from './api.ts';
import { EndUsersService } from './end-users.service.ts';
import { EndUserImports } from './imports.service.ts';
import { SEND_INVITES_JOB, type SendInvitesJob } from './invite-job.ts';
import { EndUserInvites } from './invites.service.ts';
import { EndUserSignIn } from './sign-in.service.ts';
import { SIGN_IN_CODE_BATCH, SIGN_IN_CODE_JOB_NAMES, SIGN_IN_CODE_JOB_RETRIES, SignInCodeMailer, type SendSignInCodeJob } from './sign-in-code-mail.ts';
import { endUsersInternalRefs } from './internal-refs.ts';
import { endUserRoutes } from './routes/end-users.route.ts';
import { invitePageRoutes } from './routes/invite-page.route.ts';
import { publicImportRoutes } from './routes/public-import.route.ts';
import { verifyInviteRoutes } from './routes/verify-invite.route.ts';

/** Invite verifications per client address per minute (429 `RATE_LIMITED` beyond). */
const VERIFY_INVITE_PER_IP = { points: 20, durationSeconds: 60 };

export default definePlugin({
  id: 'endusers',
  deps: {
    endUsers: endUsersInternalRefs.endUsers, imports: endUsersRefs.imports, signIn: endUsersRefs.signIn, invites: endUsersInternalRefs.invites,
    signInCodes: endUsersInternalRefs.signInCodes,
    jobs: coreRefs.jobs, rateLimits: coreRefs.rateLimits, events: coreRefs.events,
  },
  register(reg) {
    reg.service(endUsersInternalRefs.imports, EndUserImports);
    reg.service(endUsersRefs.imports, EndUserImports);
    reg.service(endUsersInternalRefs.endUsers, EndUsersService);
    reg.service(endUsersRefs.endUsers, EndUsersService);
    reg.service(endUsersInternalRefs.invites, EndUserInvites);
    reg.service(endUsersInternalRefs.signInCodes, SignInCodeMailer);
    reg.service(endUsersRefs.signIn, EndUserSignIn);
  },
  init({ endUsers, imports, signIn, invites, signInCodes, jobs, rateLimits, events }, ctx) {
    jobs.define<SendInvitesJob>({ name: SEND_INVITES_JOB, retryLimit: 5, retryDelaySeconds: 10, handler: ({ id, data }) => invites.send(id, data) });
    for (const name of SIGN_IN_CODE_JOB_NAMES) {
      jobs.define<SendSignInCodeJob>({
        name, ...SIGN_IN_CODE_JOB_RETRIES, batchSize: SIGN_IN_CODE_BATCH, orderKey: (data) => data.order, handler: ({ id, data }) => signInCodes.send(id, data),
      });
    }
    const groupsDeleted = events.on('org.app_group.deleted').subscribe((e) => {
      endUsers.forgetAppGroup(String(e.payload.orgId), String(e.payload.appGroupId))
        .catch((err: unknown) => ctx.logger.error({ err, appGroupId: e.payload.appGroupId }, 'removing access to a deleted app group failed'));
    });
    ctx.onShutdown(() => groupsDeleted.unsubscribe());
    ctx.routes(
      ...endUserRoutes(endUsers, imports, signIn),
      ...verifyInviteRoutes(invites, rateLimits.limiter({ name: 'endusers.verify-invite', ...VERIFY_INVITE_PER_IP })),
      ...publicImportRoutes(imports),
      ...invitePageRoutes(),
    );
  },
});

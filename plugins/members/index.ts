import { coreRefs, createServiceRef, definePlugin } from '../../core/index.ts';
import { rbacRefs } from '../rbac/api.ts';
import { membersExtensions, membersRefs } from './api.ts';
import { InvitationsService } from './invitations.service.ts';
import { InvitationResponseService } from './invitation-response.service.ts';
import { MembersService } from './members.service.ts';
import { invitationRoutes } from './routes/invitations.route.ts';
import { invitationResponseRoutes } from './routes/invitation-response.route.ts';
import { memberRoutes } from './routes/members.route.ts';
import { InvitationPreviewService } from './invitation-preview.service.ts';
import { invitationPageRoutes } from './routes/invitation-page.route.ts';

/** Internal to this plugin (not in api.ts). */
const responsesRef = createServiceRef<InvitationResponseService>('members.invitationResponses');
const previewsRef = createServiceRef<InvitationPreviewService>('members.invitationPreviews');

export default definePlugin({
  id: 'members',
  deps: { invitations: membersRefs.invitations, members: membersRefs.members, responses: responsesRef, previews: previewsRef, permissions: rbacRefs.permissions },
  register(reg) {
    reg.extensionPoint(membersExtensions.companyDomains);
    reg.extensionPoint(membersExtensions.directorAccepted);
    reg.extensionPoint(membersExtensions.managerChanged);
    reg.service(membersRefs.invitations, InvitationsService);
    reg.service(membersRefs.members, MembersService);
    reg.service(responsesRef, InvitationResponseService);
    reg.service(previewsRef, InvitationPreviewService);
  },
  init({ invitations, members, responses, previews, permissions }, ctx) {
    ctx.routes(
      ...invitationRoutes(invitations, permissions),
      ...invitationResponseRoutes(responses),
      ...memberRoutes(members),
      ...invitationPageRoutes(previews),
    );
  },
});

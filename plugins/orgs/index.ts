import { coreExtensions, coreRefs, definePlugin } from '../../core/index.ts';
import { accountsExtensions } from '../accounts/api.ts';
import { orgsExtensions, orgsRefs } from './api.ts';
import { OrganizationsService } from './organizations.service.ts';
import { EntitlementsService } from './entitlements.service.ts';
import { organizationRoutes } from './routes/organizations.route.ts';

/** Every member holds this unless roles say more. @see spec 01 "Role and permission" */
export const DEFAULT_MEMBER_GRANTS = ['org.audit_event_log.list:actor=self'];

export default definePlugin({
  id: 'orgs',
  deps: { config: coreRefs.config, organizations: orgsRefs.organizations },
  register(reg) {
    reg.service(orgsRefs.organizations, OrganizationsService);
    reg.service(orgsRefs.entitlements, EntitlementsService);
  },
  init({ organizations }, ctx) {
    organizations.useExtensions(ctx.extensions(orgsExtensions.onCreate), ctx.extensions(orgsExtensions.readiness));
    ctx.extend(coreExtensions.orgResolver, (slug, principal) => organizations.resolveContext(slug, principal));
    ctx.extend(coreExtensions.grants, async (_principal, org) =>
      org.member?.role === 'Owner' || org.member?.role === 'Admin' ? 'all' : DEFAULT_MEMBER_GRANTS,
    );
    ctx.extend(accountsExtensions.me, async (accountId) => ({ organizations: await organizations.listForAccount(accountId) }));
    ctx.routes(...organizationRoutes(organizations));
  },
});

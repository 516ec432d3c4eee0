import { coreExtensions, coreRefs, definePlugin } from '../../core/index.ts';
import { accountsExtensions, accountsRefs } from '../accounts/api.ts';
import { orgsExtensions, orgsRefs } from './api.ts';
import { OrganizationsService } from './organizations.service.ts';
import { EntitlementsService } from './entitlements.service.ts';
import { MembershipsService } from './memberships.service.ts';
import { organizationRoutes } from './routes/organizations.route.ts';
import { MasterSealsService } from './master-seals.service.ts';
import { OrgTypeService } from './org-type.service.ts';
import { orgTypeRoutes } from './routes/org-type.route.ts';
import { contributeMasterSealReadiness } from './readiness.ts';
import { recordSealLifecycle } from './seal-history.ts';

/** Every member holds this unless roles say more. @see docs/api/roles.md */
export const DEFAULT_MEMBER_GRANTS = ['org.audit_event_log.list:actor=self'];

export default definePlugin({
  id: 'orgs',
  deps: {
    config: coreRefs.config, organizations: orgsRefs.organizations, events: coreRefs.events, db: coreRefs.db, audit: coreRefs.audit,
    masterSeals: orgsRefs.masterSeals, orgType: orgsRefs.orgType, personalSeals: accountsRefs.personalSeals,
  },
  register(reg) {
    reg.extensionPoint(orgsExtensions.onCreate);
    reg.extensionPoint(orgsExtensions.readiness);
    reg.service(orgsRefs.organizations, OrganizationsService);
    reg.service(orgsRefs.entitlements, EntitlementsService);
    reg.service(orgsRefs.masterSeals, MasterSealsService);
    reg.service(orgsRefs.orgType, OrgTypeService);
    reg.service(orgsRefs.memberships, MembershipsService);
  },
  init({ organizations, masterSeals, orgType, personalSeals, events, db, audit }, ctx) {
    const sealHistory = recordSealLifecycle({ events, db, audit, organizations, logger: ctx.logger });
    ctx.onShutdown(() => sealHistory.unsubscribe());
    contributeMasterSealReadiness(ctx, masterSeals, personalSeals);
    ctx.extend(coreExtensions.orgResolver, (slug, principal) => organizations.resolveContext(slug, principal));
    ctx.extend(coreExtensions.grants, async (_principal, org) =>
      org.membership?.role === 'Owner' || org.membership?.role === 'Admin' ? 'all' : DEFAULT_MEMBER_GRANTS,
    );
    ctx.extend(accountsExtensions.me, async (accountId) => ({ organizations: await organizations.listForAccount(accountId) }));
    ctx.routes(...organizationRoutes(organizations));
    ctx.routes(...orgTypeRoutes(organizations, orgType, masterSeals));
  },
});

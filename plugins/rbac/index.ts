import { coreExtensions, coreRefs, definePlugin } from '../../core/index.ts';
import { orgsExtensions } from '../orgs/api.ts';
import { rbacRefs } from './api.ts';
import { rbacInternalRefs } from './internal-refs.ts';
import { RolesService } from './roles.service.ts';
import { AssignmentsService } from './assignments.service.ts';
import { PermissionsService } from './permissions.service.ts';
import { ScopeCatalog } from './scope-catalog.ts';
import { sodReportRoutes } from './routes/sod-report.route.ts';
import { roleRoutes } from './routes/roles.route.ts';
import { rolePermissionRoutes } from './routes/role-permissions.route.ts';
import { roleMemberRoutes } from './routes/role-members.route.ts';

export default definePlugin({
  id: 'rbac',
  deps: { roles: rbacRefs.roles, assignments: rbacRefs.assignments, permissions: rbacRefs.permissions, authz: coreRefs.authz },
  register(reg) {
    reg.value(rbacInternalRefs.scopeCatalog, new ScopeCatalog(reg.plugins));
    reg.service(rbacRefs.roles, RolesService);
    reg.service(rbacRefs.assignments, AssignmentsService);
    reg.service(rbacRefs.permissions, PermissionsService);
  },
  init({ roles, assignments, permissions, authz }, ctx) {
    for (const skipped of roles.scopeCatalog().skipped) ctx.logger.warn(`scope left out of the catalog: ${skipped}`);
    // Presets are made in the creation transaction; older organizations get them on first use.
    ctx.extend(orgsExtensions.onCreate, async (org, trx) => roles.ensurePresets(org.id, trx));
    // rbac initialises after orgs, so this provider is the one route `scope` checks use.
    ctx.extend(coreExtensions.grants, (principal, org) => permissions.grantsOf(principal, org));
    ctx.routes(
      ...roleRoutes(roles),
      ...sodReportRoutes(assignments),
      ...rolePermissionRoutes(roles, authz),
      ...roleMemberRoutes(assignments, permissions),
    );
  },
});

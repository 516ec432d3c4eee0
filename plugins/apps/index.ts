import { definePlugin } from '../../core/index.ts';
import { appsRefs } from './api.ts';
import { appsInternalRefs } from './internal-refs.ts';
import { AppGroupsService } from './app-groups.service.ts';
import { ApplicationsService } from './applications.service.ts';
import { appGroupRoutes } from './routes/app-groups.route.ts';
import { applicationRoutes } from './routes/applications.route.ts';

export default definePlugin({
  id: 'apps',
  deps: { appGroups: appsRefs.appGroups, applications: appsRefs.applications },
  register(reg) {
    reg.service(appsInternalRefs.applications, ApplicationsService);
    reg.service(appsRefs.applications, ApplicationsService);
    reg.service(appsRefs.appGroups, AppGroupsService);
  },
  init({ appGroups, applications }, ctx) {
    ctx.routes(...appGroupRoutes(appGroups), ...applicationRoutes(applications));
  },
});

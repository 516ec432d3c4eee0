import { definePlugin } from '../../core/index.ts';
import { keysExtensions } from '../keys/api.ts';
import { appsRefs } from './api.ts';
import { appsInternalRefs } from './internal-refs.ts';
import { AppGroupsService } from './app-groups.service.ts';
import { ApplicationsService } from './applications.service.ts';
import { AppGroupIconsService } from './app-group-icons.service.ts';
import { appGroupIconRoutes } from './routes/app-group-icon.route.ts';
import { appGroupRoutes } from './routes/app-groups.route.ts';
import { applicationRoutes } from './routes/applications.route.ts';
import { marketplaceRoutes } from './routes/marketplace.route.ts';
import { MarketplaceService } from './marketplace.service.ts';

export default definePlugin({
  id: 'apps',
  deps: { appGroups: appsRefs.appGroups, applications: appsRefs.applications, icons: appsInternalRefs.icons, marketplace: appsRefs.marketplace },
  register(reg) {
    reg.service(appsInternalRefs.applications, ApplicationsService);
    reg.service(appsRefs.applications, ApplicationsService);
    reg.service(appsRefs.appGroups, AppGroupsService);
    reg.service(appsInternalRefs.icons, AppGroupIconsService);
    reg.service(appsRefs.marketplace, MarketplaceService);
  },
  init({ appGroups, applications, icons, marketplace }, ctx) {
    // An API key may be scoped to one of the organization's app groups (POST …/api-keys `appGroupId`).
    ctx.extend(keysExtensions.appGroups, (orgId, appGroupId) => appGroups.exists(orgId, appGroupId));
    ctx.routes(...appGroupRoutes(appGroups, applications), ...appGroupIconRoutes(icons), ...applicationRoutes(applications), ...marketplaceRoutes(marketplace));
  },
});

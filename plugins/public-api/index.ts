import { definePlugin } from '../../core/index.ts';
import { accountsRefs } from '../accounts/api.ts';
import { orgsRefs } from '../orgs/api.ts';
import { keysRefs } from '../keys/api.ts';
import { appsRefs } from '../apps/api.ts';
import { OrganizationDirectory } from './organization-directory.ts';
import { appGroupRoutes } from './routes/app-groups.route.ts';
import { meRoutes } from './routes/me.route.ts';
import { orgRoutes } from './routes/orgs.route.ts';

export default definePlugin({
  id: 'public-api',
  deps: {
    accounts: accountsRefs.accounts, organizations: orgsRefs.organizations, memberships: orgsRefs.memberships,
    apiKeys: keysRefs.apiKeys, signingKeys: keysRefs.signingKeys, appGroups: appsRefs.appGroups,
  },
  init({ accounts, organizations, memberships, apiKeys, signingKeys, appGroups }, ctx) {
    const directory = new OrganizationDirectory(accounts, organizations, memberships);
    ctx.routes(...meRoutes(directory, apiKeys, signingKeys), ...orgRoutes(directory), ...appGroupRoutes(directory, appGroups));
  },
});

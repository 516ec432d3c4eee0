import { coreRefs, createServiceRef, definePlugin } from '../../core/index.ts';
import { orgsRefs } from '../orgs/api.ts';
import { scimTokenAuthScheme } from './scim-token.auth.ts';
import { ScimTokensService } from './tokens.service.ts';
import { ScimUsersService } from './users.service.ts';
import { scimRoutes } from './routes/scim.route.ts';
import { tokenRoutes } from './routes/tokens.route.ts';

const tokensRef = createServiceRef<ScimTokensService>('scim.tokens');
const usersRef = createServiceRef<ScimUsersService>('scim.users');

export default definePlugin({
  id: 'scim',
  deps: { tokens: tokensRef, users: usersRef, organizations: orgsRefs.organizations, config: coreRefs.config },
  register(reg) {
    reg.service(tokensRef, ScimTokensService);
    reg.service(usersRef, ScimUsersService);
  },
  init({ tokens, users, organizations, config }, ctx) {
    ctx.authScheme(scimTokenAuthScheme(tokens, organizations));
    ctx.routes(...tokenRoutes(tokens), ...scimRoutes(users, config.baseUrl));
  },
});

import { coreExtensions, coreRefs, definePlugin } from '../../core/index.ts';
import { orgsRefs } from '../orgs/api.ts';
import { scimRefs } from './internal-refs.ts';
import { scimTokenAuthScheme } from './scim-token.auth.ts';
import { ScimTokensService } from './tokens.service.ts';
import { ScimUsersService } from './users.service.ts';
import { ScimUsersWriter } from './users-writer.service.ts';
import { scimRoutes } from './routes/scim.route.ts';
import { scimUserWriteRoutes } from './routes/scim-users-write.route.ts';
import { scimGroupRoutes } from './routes/scim-groups.route.ts';
import { ScimGroupsService } from './groups.service.ts';
import { ScimGroupsWriter } from './groups-writer.service.ts';
import { withScimErrors } from './scim-guard.ts';
import { SCIM_JSON, scimErrorBody } from './scim-reply.ts';
import { tokenRoutes } from './routes/tokens.route.ts';

export default definePlugin({
  id: 'scim',
  deps: {
    tokens: scimRefs.tokens, users: scimRefs.users, writer: scimRefs.writer, groups: scimRefs.groups, groupsWriter: scimRefs.groupsWriter,
    organizations: orgsRefs.organizations, config: coreRefs.config,
  },
  register(reg) {
    reg.service(scimRefs.tokens, ScimTokensService);
    reg.service(scimRefs.users, ScimUsersService);
    reg.service(scimRefs.writer, ScimUsersWriter);
    reg.service(scimRefs.groups, ScimGroupsService);
    reg.service(scimRefs.groupsWriter, ScimGroupsWriter);
  },
  init({ tokens, users, writer, groups, groupsWriter, organizations, config }, ctx) {
    ctx.authScheme(scimTokenAuthScheme(tokens, organizations));
    ctx.routes(...tokenRoutes(tokens));
    // Every SCIM answer, errors included, is a SCIM body (RFC 7644 §3.12), never Aerie's envelope.
    ctx.routes(...withScimErrors([...scimRoutes(users, config.baseUrl), ...scimUserWriteRoutes(writer), ...scimGroupRoutes(groups, groupsWriter)], ctx.logger));
    // And what the kernel answers before a SCIM route runs (a body over 1 MiB, one that does not
    // parse, a path no SCIM route serves, a 500): the same SCIM error body.
    ctx.extend(coreExtensions.errorFormats, {
      pathPrefix: '/scim/v2/',
      render: ({ status, message, requestId }) => ({
        body: scimErrorBody(status, status >= 500 ? `Something went wrong on our side (request ${requestId}).` : message), headers: { ...SCIM_JSON },
      }),
    });
  },
});

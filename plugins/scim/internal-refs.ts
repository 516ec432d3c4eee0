import { createServiceRef } from '../../core/index.ts';
import type { ScimGroupsService } from './groups.service.ts';
import type { ScimGroupsWriter } from './groups-writer.service.ts';
import type { ScimTokensService } from './tokens.service.ts';
import type { ScimUsersService } from './users.service.ts';
import type { ScimUsersWriter } from './users-writer.service.ts';

/** The scim plugin's own services (none is published to other plugins). */
export const scimRefs = {
  tokens: createServiceRef<ScimTokensService>('scim.tokens'),
  users: createServiceRef<ScimUsersService>('scim.users'),
  writer: createServiceRef<ScimUsersWriter>('scim.usersWriter'),
  groups: createServiceRef<ScimGroupsService>('scim.groups'),
  groupsWriter: createServiceRef<ScimGroupsWriter>('scim.groupsWriter'),
};

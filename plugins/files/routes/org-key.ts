import type { Principal } from '../../../core/index.ts';
import { requireOrganizationWideKey, type ApiKeyPrincipal } from '../../keys/api.ts';

/**
 * The organization of an organization-wide API key: the file box's routes act within it only.
 * @throws 401 `UNAUTHORIZED` for an app-group-scoped key
 */
export function keyOrg(principal: Principal): string {
  requireOrganizationWideKey(principal);
  return (principal as ApiKeyPrincipal).orgId;
}

import type { OrganizationsService } from '../orgs/api.ts';
import type { ApiKeyPrincipal } from '../keys/api.ts';
import { verifyEndUserAccessToken, type AccessTokenDeps } from './access-tokens.ts';

/** `POST /api/public/v1/end-users/permission-check` answer. @see docs/api/signin.md "Permission check" */
export interface PermissionCheckDto {
  /** Whether the token is a live end-user access token of the key's organization (and app group, for a group-scoped key). */
  active: boolean;
  /** Whether the end user holds `permission` for the token's app group right now. */
  allowed: boolean;
  endUserId: string | null;
  appGroupId: string | null;
}

const INACTIVE: PermissionCheckDto = { active: false, allowed: false, endUserId: null, appGroupId: null };

/**
 * Aerie's server-authoritative permission check for an application's backend: the end user's access
 * token (`Authorization: Bearer`) is verified as introspection verifies it — RS256 with the
 * organization's active key, the grant still stored, the end user `Active` with access to the app
 * group — and `permission` is looked up in the permissions an administrator set, read from the
 * database now, so a suspension, a removed access or a changed permission list applies at once.
 * An app-group-scoped key checks only tokens of its own group. An invalid token is an answer
 * (`active: false`), not an error, as in RFC 7662.
 */
export async function checkPermission(
  deps: AccessTokenDeps & { orgs: OrganizationsService }, key: ApiKeyPrincipal, authorization: string | undefined, permission: string,
): Promise<PermissionCheckDto> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const org = token && (await deps.orgs.findById(key.orgId));
  if (!token || !org) return INACTIVE;
  const live = await verifyEndUserAccessToken(deps, { id: org.id, slug: org.slug }, token);
  if (!live || (key.appGroupId !== undefined && key.appGroupId !== live.appGroupId)) return INACTIVE;
  return { active: true, allowed: live.subject.permissions.includes(permission), endUserId: live.subject.id, appGroupId: live.appGroupId };
}

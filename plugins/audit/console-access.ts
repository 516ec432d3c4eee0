import { notFound, type AuthzService, type OrgContext, type Principal } from '../../core/index.ts';
import type { OrganizationsService } from '../orgs/api.ts';
import { auditErrors } from './errors.ts';
import { OWNER_ONLY_PREFIXES } from './visibility.ts';

/** The unconstrained list scope: what a machine token needs for the organization-wide console figures. */
const LIST_ALL = 'org.audit_event_log.list';

/** Event types only the Owner sees, in figures as in lists (docs/audit.md). */

/**
 * A caller allowed the organization-wide console figures (`/sessions`, `/stats`, `/stats/quick`):
 * `owner` decides whether `payment.*` counts (`excludePrefixes`); `sessionId` is the caller's own
 * console session (absent for a machine token).
 */
export interface OrgReader {
  org: OrgContext;
  owner: boolean;
  excludePrefixes: readonly string[];
  sessionId?: string;
}

/**
 * Resolves `orgSlug` for the caller and applies the rule of the organization-wide console routes,
 * the same as `GET /query?scope=all` without the plan gate: a member by role (Owner or Admin), a
 * machine token of the organization by holding the unconstrained `org.audit_event_log.list`.
 * @param authz - `core.authz`.
 * @throws AerieError 404 `NOT_FOUND` when the caller is not an active member (nor a token) of the
 *   organization; 403 `PERMISSION_DENIED` (`required: org.audit_event_log.list`) otherwise.
 * @see docs/api/audit.md "Console figures"
 */
export async function orgReader(organizations: OrganizationsService, authz: AuthzService, slug: string, principal: Principal): Promise<OrgReader> {
  const org = await organizations.resolveContext(slug, principal);
  if (!org) throw notFound();
  const role = org.membership?.role;
  const allowed = org.membership ? role === 'Owner' || role === 'Admin' : await authz.holds(principal, org, LIST_ALL);
  if (!allowed) throw auditErrors.permissionDenied(LIST_ALL);
  const owner = role === 'Owner';
  return { org, owner, excludePrefixes: owner ? [] : OWNER_ONLY_PREFIXES, ...(principal.sessionId ? { sessionId: principal.sessionId } : {}) };
}

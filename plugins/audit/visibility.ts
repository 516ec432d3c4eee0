import type { AuthzService, OrgContext, Principal } from '../../core/index.ts';
import { auditErrors } from './errors.ts';

/** Per-system grant → event-type prefix. @see docs/audit.md */
export const SYSTEM_PREFIXES: Readonly<Record<string, string>> = {
  agent: 'agent.',
  project_mgmt: 'org.project.',
  reporting: 'reporting.',
  payment: 'payment.',
};

/** Event-type prefixes only the organization's Owner sees, on every path (lists, detail, archive, counts). @see docs/audit.md */
export const OWNER_ONLY_PREFIXES: readonly string[] = ['payment.'];

const SYSTEM_GRANT = /^org\.audit_event_log\.list_system:system=([a-z_]+)$/;

/**
 * What a caller may see in one organization's audit events:
 * `{ wholeOrg, prefixes, self, owner }` — `self` is the caller's account id (own events are
 * always visible); `owner` alone sees `payment.*`, on every path.
 * @see docs/audit.md (the `scope` table)
 */
export interface AuditVisibility {
  wholeOrg: boolean;
  prefixes: string[];
  self: string;
  /** The actor type of own events: `account`, or `machine` for a machine token (`self` is then its key id). */
  selfType: string;
  owner: boolean;
}

/** The unconstrained list scope: a machine token holding it sees the whole organization. */
const LIST_ALL = 'org.audit_event_log.list';

/**
 * Resolves the visibility for `scope` (`mine` default, `all`): `all` is the whole organization for
 * Owner/Admin, granted systems plus own for per-system grant holders, 403 `PERMISSION_DENIED`
 * otherwise; then 403 `UPGRADE_REQUIRED` (`feature.audit.view_all`) below Pro.
 * @param authz - `core.authz`.
 * @see docs/audit.md
 */
export async function resolveVisibility(
  scope: 'mine' | 'all', principal: Principal, org: OrgContext, authz: AuthzService, hasViewAll: () => Promise<boolean>,
): Promise<AuditVisibility> {
  const role = org.membership?.role;
  const owner = role === 'Owner';
  const self = principal.accountId ?? principal.id;
  const selfType = principal.accountId ? 'account' : principal.type;
  if (scope === 'mine') return { wholeOrg: false, prefixes: [], self, selfType, owner };
  const held = await authz.permissionSet(principal, org);
  // Members see the whole organization by role; a credential without membership (a machine token)
  // by holding the unconstrained list scope — it has no role (docs/api/keys.md).
  const wholeOrg = org.membership ? role === 'Owner' || role === 'Admin' : held === 'all' || held.has(LIST_ALL);
  const prefixes = held === 'all' ? [] : held.toArray().map((g) => SYSTEM_GRANT.exec(g)?.[1]).filter((k): k is string => !!k && k in SYSTEM_PREFIXES).map((k) => SYSTEM_PREFIXES[k]);
  if (!wholeOrg && prefixes.length === 0) throw auditErrors.permissionDenied(LIST_ALL);
  if (!(await hasViewAll())) throw auditErrors.upgradeRequired('feature.audit.view_all');
  return { wholeOrg, prefixes: [...new Set(prefixes)], self, selfType, owner };
}

/** The same rule for one record already read (detail, verify). */
export function isVisible(record: { eventType: string; actor: { type: string; id: string } }, v: AuditVisibility): boolean {
  if (!v.owner && OWNER_ONLY_PREFIXES.some((p) => record.eventType.startsWith(p))) return false;
  if (v.wholeOrg) return true;
  if (record.actor.type === v.selfType && record.actor.id === v.self) return true;
  return v.prefixes.some((p) => record.eventType.startsWith(p));
}

/**
 * Who may download whole archive files (`/presign`, `/compact/urls`): the organization's Owner
 * holding the unconstrained list scope, on Pro or higher — a day file holds every event, `payment.*`
 * included, so nothing less than what sees everything may have it.
 * @param authz - `core.authz`.
 * @throws AerieError 403 `PERMISSION_DENIED` (`required: org.audit_event_log.list`) for anyone but
 *   such an Owner; then 403 `UPGRADE_REQUIRED` (`feature.audit.view_all`) below Pro.
 * @see docs/audit.md; spec 01 "Audit"
 */
export async function requireWholeArchive(principal: Principal, org: OrgContext, authz: AuthzService, hasViewAll: () => Promise<boolean>): Promise<void> {
  if (org.membership?.role !== 'Owner' || !(await authz.holds(principal, org, LIST_ALL))) throw auditErrors.permissionDenied(LIST_ALL);
  if (!(await hasViewAll())) throw auditErrors.upgradeRequired('feature.audit.view_all');
}

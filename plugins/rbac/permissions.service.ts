import { coreRefs, inject, injectable, type AuthzService, type Database, type OrgContext, type PermissionSet, type Principal } from '../../core/index.ts';
import { DEFAULT_MEMBER_GRANTS } from './default-grants.ts';
import type { PermissionsService as PermissionsServiceApi } from './service-interfaces.ts';

/** Most members' permission sets kept built (by membership id); a hit still reads fresh grants first. */
export const PERMISSION_SET_CACHE_SIZE = 2048;

const DEFAULT_GRANTS = Object.freeze([...DEFAULT_MEMBER_GRANTS]) as string[];

/** A member's grants at one version: the frozen array handed to the route check, and its built set. */
interface CachedSet {
  readonly id: string;
  readonly version: number;
  readonly grants: string[];
  readonly set: PermissionSet;
}

/**
 * `rbac.permissions`: the grants provider behind `core.authz` ("does this principal hold scope X in
 * this organization?" is asked of `core.authz`, which reads it).
 *
 * - Owner and Admin hold everything (`'all'`).
 * - Another active member holds the default grant (`org.audit_event_log.list:actor=self`) and the
 *   union of their assignment snapshots, read fresh on every call with one primary-key look-up
 *   (`rbac.member_access`), so a revocation applies on the next request. Membership status was read
 *   fresh by the organization resolver in the same request: suspended and revoked members never
 *   get here (404).
 * - Credentials that carry their own scopes (API keys, machine tokens) are judged by those.
 *
 * The built {@link PermissionSet} of a member (and the frozen grants array handed to the kernel's
 * route check, which keeps the set it built per array) is cached against the access row's
 * `version`, so a repeated check costs the look-up plus a few map probes; any change of the
 * member's grants bumps the version (it never goes back, see `AssignmentsService.clear`) and the
 * next call rebuilds.
 * @see docs/api/roles.md, docs/api/accounts.md (fresh permissions), "Errors" (`PERMISSION_DENIED`)
 */
@injectable()
export class PermissionsService implements PermissionsServiceApi {
  private readonly sets = new Map<string, CachedSet>();
  private last?: CachedSet;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.authz.id) private readonly authz: AuthzService,
  ) {}

  /**
   * The grants provider registered on `coreExtensions.grants` (route `scope` checks).
   * @returns `'all'` for Owner and Admin, otherwise the member's scope texts
   */
  async grantsOf(principal: Principal, org: OrgContext): Promise<'all' | string[]> {
    if (principal.scopes) return principal.scopes;
    const role = org.membership?.role;
    if (role === 'Owner' || role === 'Admin') return 'all';
    if (!org.membership) return [];
    // The same frozen array while the grants are unchanged: the kernel reuses the set it built for it.
    return (await this.current(org.organization.id, org.membership.id))?.grants ?? DEFAULT_GRANTS;
  }

  /**
   * The cached set for a member at `version`, rebuilt when the version moved. The default grant is
   * included. Exposed for the benchmark and for callers that already read the access row.
   */
  setFor(membershipId: string, version: number, grants: readonly string[]): PermissionSet {
    return this.entryFor(membershipId, version, grants).set;
  }

  private entryFor(membershipId: string, version: number, grants: readonly string[]): CachedSet {
    // The member checked last is the likeliest next one (several checks in one request): no map probe.
    const last = this.last;
    if (last !== undefined && last.id === membershipId && last.version === version) return last;
    let entry = this.sets.get(membershipId);
    if (!entry || entry.version !== version) {
      if (this.sets.size >= PERMISSION_SET_CACHE_SIZE && !entry) this.sets.delete(this.sets.keys().next().value as string);
      const all = Object.freeze([...new Set([...DEFAULT_MEMBER_GRANTS, ...grants])]) as string[];
      entry = { id: membershipId, version, grants: all, set: this.authz.setOf(all) };
      this.sets.set(membershipId, entry);
    }
    this.last = entry;
    return entry;
  }

  /**
   * The member's grants as of now: one primary-key read. When this process already holds the
   * member's set, the read names its version and the grants travel only if the version moved.
   */
  private async current(orgId: string, membershipId: string): Promise<CachedSet | undefined> {
    const known = this.last?.id === membershipId ? this.last : this.sets.get(membershipId);
    const row = (await this.db.knex('rbac.member_access').where({ membershipId, orgId })
      .first('version', this.db.knex.raw('case when version = ? then null else grants end as grants', [known?.version ?? -1]))) as
      { grants: string[] | null; version: number } | undefined;
    if (!row) return undefined;
    if (row.grants === null && known && known.version === row.version) {
      this.last = known;
      return known;
    }
    return this.entryFor(membershipId, row.version, row.grants ?? []);
  }
}

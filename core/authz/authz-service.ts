import { permissionDenied } from '../errors.ts';
import type { GrantsProvider } from '../http/authorizer.ts';
import type { OrgContext, Principal } from '../http/route.ts';
import { PermissionSet } from './permission-set.ts';
import type { ScopeContext } from './scope-match.ts';

/**
 * Authorization as a kernel service (`core.authz`): what a principal holds in an organization, by
 * the one rule the router's `scope` check applies. A credential that carries its own scopes (a
 * machine token, an API key) holds those; anyone else holds what the grants provider says for the
 * organization (the `orgs` plugin: Owner and Admin hold everything, other members the defaults;
 * `rbac` refines that with roles); without a provider nothing. Plugins check permissions outside
 * the route table through it and never build permission sets of their own.
 * @see docs/plugins.md "Checking a permission"; docs/api/roles.md
 */
export interface AuthzService {
  /** `'all'` (Owner/Admin) or the permission set the principal holds in `org`. */
  permissionSet(principal: Principal, org: OrgContext): Promise<'all' | PermissionSet>;
  /**
   * Whether the principal holds `scope` in `org`.
   * @param context - `{ principalId, actorId }` for `actor=self` grants
   * @throws ScopeSyntaxError when `scope` is not a scope expression (a caller's bug, or input to validate first)
   */
  holds(principal: Principal, org: OrgContext, scope: string, context?: ScopeContext): Promise<boolean>;
  /**
   * Like {@link holds}, but refuses.
   * @throws AerieError 403 `PERMISSION_DENIED` with `required: scope`
   */
  require(principal: Principal, org: OrgContext, scope: string, context?: ScopeContext): Promise<void>;
  /**
   * The set for a grants array: built once per array, so a provider that returns the same frozen
   * array while grants are unchanged pays for indexing once.
   */
  setOf(grants: readonly string[]): PermissionSet;
}

/** The kernel's {@link AuthzService}; the grants provider is read at each call (plugins contribute it during init). */
export class KernelAuthz implements AuthzService {
  // Sets built per grants array, collected with it.
  private readonly built = new WeakMap<readonly string[], PermissionSet>();

  constructor(private readonly grants: () => GrantsProvider | undefined) {}

  async permissionSet(principal: Principal, org: OrgContext): Promise<'all' | PermissionSet> {
    const held = await this.held(principal, org);
    return held === 'all' ? 'all' : this.setOf(held);
  }

  async holds(principal: Principal, org: OrgContext, scope: string, context?: ScopeContext): Promise<boolean> {
    const set = await this.permissionSet(principal, org);
    return set === 'all' || set.has(scope, context);
  }

  async require(principal: Principal, org: OrgContext, scope: string, context?: ScopeContext): Promise<void> {
    if (!(await this.holds(principal, org, scope, context))) throw permissionDenied(scope);
  }

  setOf(grants: readonly string[]): PermissionSet {
    let set = this.built.get(grants);
    if (!set) this.built.set(grants, (set = new PermissionSet(grants)));
    return set;
  }

  private async held(principal: Principal, org: OrgContext): Promise<'all' | readonly string[]> {
    if (principal.scopes) return principal.scopes;
    const provider = this.grants();
    return provider ? provider(principal, org) : [];
  }
}

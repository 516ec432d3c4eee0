/**
 * The scope catalog: the scopes enabled plugins declare in their manifests (`permissions`), which
 * are the only bases a role's permission may use.
 *
 * Rules for an expression added to a role (`POST /roles/{roleId}/permissions`):
 * 1. It parses (400 `INVALID_SCOPE`).
 * 2. In the `org` namespace, its resource (the first segment after `org.`) is on
 *    {@link ORG_RESOURCE_WHITELIST} (400 `SCOPE_NOT_ALLOWED`). `*` alone and `org.*` are refused the
 *    same way: "everything" is what Owner and Admin hold, not a role.
 * 3. Its base resolves in the catalog (400 `UNKNOWN_SCOPE`): a plain base must be declared; a
 *    wildcard base (`org.project.*`) must cover at least one declared scope, and resolves to the
 *    wildcard itself.
 *
 * A manifest scope in the `org` namespace whose resource is not whitelisted is left out of the
 * catalog (with a warning at boot), so a plugin cannot widen the `org` namespace by declaring.
 *
 * @see docs/api/roles.md ("The service's own namespace is restricted to a whitelist of resources")
 */
import { parseScope, type ScopeExpression } from '../../core/index.ts';
import { rbacErrors } from './errors.ts';

/**
 * Resources of the `org` namespace that roles may carry, from the spec's route families.
 * @see docs/api/roles.md "Scope catalog"
 */
export const ORG_RESOURCE_WHITELIST: ReadonlySet<string> = new Set([
  'agent', 'api_key', 'app_group', 'application', 'approval', 'audit_event_log', 'billing', 'board', 'device_identity',
  'end_user', 'file', 'idp_connection', 'integration', 'invoice', 'meeting', 'member', 'notification', 'org_file',
  'payment_gateway', 'permission', 'project', 'reporting_instance', 'role', 'scim_token', 'setting', 'signing_key',
  'sod_report', 'team', 'webhook',
]);

/** One catalog entry. */
export interface CatalogEntry {
  readonly scope: string;
  readonly description: string;
  /** Id of the plugin whose manifest declares it. */
  readonly plugin: string;
}

/** What a manifest contributes (`PluginManifest` fields the catalog reads). */
export interface ManifestPermissions {
  readonly id: string;
  readonly permissions?: readonly { scope: string; description: string }[];
}

/** The scope catalog of the enabled plugins. */
export class ScopeCatalog {
  private readonly entries = new Map<string, CatalogEntry>();
  /** Manifest scopes left out, as `plugin: scope (reason)`. */
  readonly skipped: string[] = [];

  /** @param manifests - the enabled plugins' manifests (`ctx.plugins`) */
  constructor(manifests: readonly ManifestPermissions[]) {
    for (const m of manifests) {
      for (const p of m.permissions ?? []) {
        let expr: ScopeExpression;
        try {
          expr = parseScope(p.scope);
        } catch {
          this.skipped.push(`${m.id}: ${p.scope} (not a scope expression)`);
          continue;
        }
        if (!resourceAllowed(expr)) {
          this.skipped.push(`${m.id}: ${p.scope} (resource not on the org whitelist)`);
          continue;
        }
        if (!this.entries.has(expr.base)) this.entries.set(expr.base, { scope: expr.base, description: p.description, plugin: m.id });
      }
    }
  }

  /** Every entry, sorted by scope. */
  list(): CatalogEntry[] {
    return [...this.entries.values()].sort((a, b) => (a.scope < b.scope ? -1 : 1));
  }

  /** Whether `scope` (a plain base) is declared. */
  has(scope: string): boolean {
    return this.entries.has(scope);
  }

  /**
   * Resolves the base of an expression (rules 2–3 above).
   * @returns the catalog base: the declared scope, or the wildcard for a wildcard base
   * @throws 400 `SCOPE_NOT_ALLOWED`, 400 `UNKNOWN_SCOPE`
   */
  resolveBase(expr: ScopeExpression, text: string): string {
    if (!resourceAllowed(expr)) throw rbacErrors.scopeNotAllowed(text);
    if (!expr.wildcard) {
      if (!this.entries.has(expr.base)) throw rbacErrors.unknownScope(text);
      return expr.base;
    }
    const prefix = expr.base.slice(0, -1);
    for (const scope of this.entries.keys()) if (scope.startsWith(prefix)) return expr.base;
    throw rbacErrors.unknownScope(text);
  }
}

function resourceAllowed(expr: ScopeExpression): boolean {
  if (expr.namespace === '*') return false;
  if (expr.namespace !== 'org') return true;
  const resource = expr.base.split('.')[1];
  return resource !== undefined && resource !== '*' && ORG_RESOURCE_WHITELIST.has(resource) && (expr.base.split('.').length > 2);
}

import { BootError } from '../plugins/boot-error.ts';
import type { AuthScheme } from './auth-scheme.ts';
import type { RouteDef } from './route.ts';

/** A route definition with the id of the plugin (or `kernel`) that registered it. */
export interface OwnedRoute {
  pluginId: string;
  def: RouteDef;
}

const PARAM = /^\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * The shape of a path, with parameter names erased: `/api/org/{slug}/roles/{roleId}` →
 * `/api/org/{}/roles/{}`. Two routes with the same method and shape can never be told apart.
 * @param path - a route path with `{param}` placeholders.
 */
export function pathShape(path: string): string {
  return path.split('/').map((s) => (PARAM.test(s) ? '{}' : s)).join('/');
}

/**
 * Sort key of a path: one character per segment, `0` for a literal and `1` for a `{param}`, so a
 * literal segment sorts before a parameter at the same position (`/roles/scopes` before
 * `/roles/{roleId}`), whatever order the plugins registered them in.
 */
function specificity(path: string): string {
  return path.split('/').map((s) => (PARAM.test(s) ? '1' : '0')).join('');
}

/**
 * Checks the route table and returns it in matching order: most specific first, where at the first
 * position two paths differ in kind, the literal segment wins (as in Fastify's radix tree). Routes
 * of equal specificity keep their registration order; they can never match the same request.
 * @param routes - every route of the kernel and the enabled plugins, in registration order.
 * @returns a new array; `routes` is not changed.
 * @throws BootError on a second route with the same method and path shape, naming both plugins:
 *   `duplicate route GET /api/org/{slug}/roles/{roleId}: plugin rbac and plugin partner`.
 * @example
 * orderRoutes([{ pluginId: 'rbac', def: byId }, { pluginId: 'rbac', def: scopes }]) // → [scopes, byId]
 */
export function orderRoutes(routes: readonly OwnedRoute[]): OwnedRoute[] {
  const seen = new Map<string, OwnedRoute>();
  for (const r of routes) {
    const key = `${r.def.method} ${pathShape(r.def.path)}`;
    const first = seen.get(key);
    if (first) {
      const paths = first.def.path === r.def.path ? r.def.path : `${first.def.path} (and ${r.def.path})`;
      throw new BootError(`duplicate route ${r.def.method} ${paths}: plugin ${first.pluginId} and plugin ${r.pluginId}`);
    }
    seen.set(key, r);
  }
  const keyed = routes.map((r) => ({ r, key: specificity(r.def.path) }));
  // Array.prototype.sort is stable, so equal keys keep registration order.
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.r);
}

/**
 * Widens `auth` of every organization route (`org: true`, not public) with the schemes that say so:
 * - schemes that authenticate organization-bound credentials ({@link AuthScheme.orgCredential}, e.g.
 *   `machineToken`) on every such route that is not `personOnly` and takes no
 *   {@link AuthScheme.dedicated} credential (SCIM), so accepting them is the norm and refusing them
 *   the route's explicit choice;
 * - a person's scheme that rides along another ({@link AuthScheme.orgRoutesWith}, the cookie session
 *   beside the bearer session) on every such route that accepts that other scheme.
 * Applied once at boot, before the router and the OpenAPI document are built, so both agree.
 * @param routes - the route table in registration order.
 * @param schemes - the registered auth schemes by name.
 * @returns a new array; routes that change get a copied definition, `routes` is not changed.
 * @see docs/plugins.md (routes and machine tokens), docs/api/keys.md
 */
export function withOrgCredentials(routes: readonly OwnedRoute[], schemes: ReadonlyMap<string, AuthScheme>): OwnedRoute[] {
  const credentials = [...schemes.values()].filter((s) => s.orgCredential).map((s) => s.name);
  const riders = [...schemes.values()].filter((s) => s.orgRoutesWith !== undefined);
  if (credentials.length === 0 && riders.length === 0) return [...routes];
  return routes.map((r) => {
    const { def } = r;
    if (!def.org || def.auth === 'public') return r;
    const declared: readonly string[] = Array.isArray(def.auth) ? def.auth : [def.auth as string];
    const dedicated = declared.some((name) => schemes.get(name)?.dedicated);
    const wanted = [
      ...riders.filter((s) => declared.includes(s.orgRoutesWith!)).map((s) => s.name),
      ...(def.personOnly === undefined && !dedicated ? credentials : []),
    ];
    const added = wanted.filter((name) => !declared.includes(name));
    return added.length === 0 ? r : { ...r, def: { ...def, auth: [...declared, ...added] } };
  });
}

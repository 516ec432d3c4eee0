/**
 * Narrowing: a request for scopes may only ask for what the holder already has.
 *
 * Used for the machine token `scope` parameter ("scope can only narrow what the key holds") and
 * anywhere a delegate receives part of a holder's grants.
 *
 * @see docs/api/roles.md, docs/api/keys.md
 */
import { PermissionSet } from './permission-set.ts';
import { formatScope, parseScope, type ScopeExpression } from './scope-expression.ts';

/**
 * Outcome of {@link narrowScopes}: `granted` in canonical text, `refused` exactly as requested.
 * @see docs/api/roles.md
 * @see docs/api/keys.md
 */
export interface NarrowResult {
  granted: string[];
  refused: string[];
}

function tryParse(text: string): ScopeExpression | undefined {
  try {
    return parseScope(text);
  } catch {
    return undefined;
  }
}

/**
 * Splits requested scopes into those some held scope grants and those it does not.
 *
 * A malformed requested text is refused rather than thrown, since it comes from the client and the
 * caller answers every refusal the same way (OAuth `invalid_scope`). Requested scopes may be
 * wildcards (`org.project.*` is granted by a held `org.*`, never by `org.project.read`). Duplicates
 * collapse; order follows the request. An empty request yields nothing: whether "no scope" means
 * "everything the key holds" is the caller's decision.
 *
 * @param held - the holder's scopes (e.g. an API key's grants)
 * @param requested - the scopes asked for
 * @returns `{ granted, refused }`
 * @throws {@link ScopeSyntaxError} when a held text is malformed (stored data, so a server fault)
 * @example narrowScopes(['org.project.*'], ['org.project.read', 'org.role.assign'])
 *   // { granted: ['org.project.read'], refused: ['org.role.assign'] }
 * @see docs/api/roles.md
 * @see docs/api/keys.md
 */
export function narrowScopes(held: readonly string[] | PermissionSet, requested: readonly string[]): NarrowResult {
  const perms = held instanceof PermissionSet ? held : new PermissionSet(held);
  const granted = new Set<string>();
  const refused = new Set<string>();
  for (const text of requested) {
    const expr = tryParse(text);
    if (expr && perms.has(expr)) granted.add(formatScope(expr));
    else refused.add(text);
  }
  return { granted: [...granted], refused: [...refused] };
}

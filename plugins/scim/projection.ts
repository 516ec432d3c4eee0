/**
 * `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5), top-level: `members.value` counts as
 * `members`, URN-qualified names (`urn:…:Group:displayName`) resolve. `schemas` and `id` are always
 * returned (RFC 7643 "returned: always").
 */
export interface Projection {
  include?: ReadonlySet<string>;
  exclude: ReadonlySet<string>;
}

const ALWAYS = new Set(['schemas', 'id']);

function names(raw: string | undefined, coreUrn: string): Set<string> {
  const out = new Set<string>();
  for (const part of (raw ?? '').split(',')) {
    let name = part.trim();
    if (!name) continue;
    if (name.toLowerCase().startsWith(`${coreUrn.toLowerCase()}:`)) name = name.slice(coreUrn.length + 1);
    out.add(name.split('.')[0]!.toLowerCase());
  }
  return out;
}

/** Reads the two query parameters; a message when one is given twice. */
export function readProjection(query: Record<string, unknown>, coreUrn: string): Projection | string {
  for (const p of ['attributes', 'excludedAttributes']) if (Array.isArray(query[p])) return `${p} is given more than once.`;
  const include = query.attributes === undefined ? undefined : names(query.attributes as string, coreUrn);
  return { ...(include && include.size > 0 ? { include } : {}), exclude: names(query.excludedAttributes as string | undefined, coreUrn) };
}

/** Whether the answer carries top-level attribute `name`. */
export function wants(p: Projection, name: string): boolean {
  const n = name.toLowerCase();
  if (ALWAYS.has(n)) return true;
  if (p.include) return p.include.has(n);
  return !p.exclude.has(n);
}

/** The resource with only the attributes `p` asks for. */
export function project<T extends object>(resource: T, p: Projection): Partial<T> {
  if (!p.include && p.exclude.size === 0) return resource;
  return Object.fromEntries(Object.entries(resource).filter(([k]) => wants(p, k))) as Partial<T>;
}

/**
 * Reporting-cycle search over an organization's reporting edges (person → manager).
 * @see docs/api/teams.md "Cycles"
 */

/**
 * The cycle that the new edge `source → target` would close, or null when there is none: the path
 * `[source, target, …, source]` (each step a reporting edge, the first one the new edge). A self
 * edge is the cycle `[source, source]`.
 * @param edges - the existing reporting edges as `[source, target]` pairs (duplicates allowed)
 * @example findCycle([['b', 'a']], 'a', 'b') // ['a', 'b', 'a']
 */
export function findCycle(edges: Iterable<readonly [string, string]>, source: string, target: string): string[] | null {
  if (source === target) return [source, source];
  const up = new Map<string, string[]>();
  for (const [s, t] of edges) {
    const list = up.get(s);
    if (list) list.push(t);
    else up.set(s, [t]);
  }
  // Breadth-first from the new manager up their reporting lines: reaching `source` closes a cycle,
  // and the first time is along a shortest path.
  const cameFrom = new Map<string, string>([[target, '']]);
  const queue = [target];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    for (const next of [...(up.get(node) ?? [])].sort()) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, node);
      if (next === source) {
        const back = [source];
        for (let at = node; at !== ''; at = cameFrom.get(at)!) back.push(at);
        return [source, ...back.slice(1).reverse(), source];
      }
      queue.push(next);
    }
  }
  return null;
}

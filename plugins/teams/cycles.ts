/**
 * Reporting-cycle search over an organization's reporting edges (person → manager).
 * @see docs/api/teams.md "Cycles"
 */

/** Reporting edges by source: who each person reports to. */
export type ReportingIndex = Map<string, string[]>;

/** Indexes `[source, target]` pairs by source (duplicates are kept; the search skips them). */
export function indexReporting(pairs: Iterable<readonly [string, string]>): ReportingIndex {
  const up: ReportingIndex = new Map();
  for (const [s, t] of pairs) addReporting(up, s, t);
  return up;
}

/** Adds the edge `source → target` to `up`. */
export function addReporting(up: ReportingIndex, source: string, target: string): void {
  const list = up.get(source);
  if (list) list.push(target);
  else up.set(source, [target]);
}

/**
 * The cycle that the new edge `source → target` would close, or null when there is none: the path
 * `[source, target, …, source]` (each step a reporting edge, the first one the new edge), a
 * shortest one. A self edge is the cycle `[source, source]`.
 * @param up - the existing reporting edges, indexed by source ({@link indexReporting})
 * @example findCycle(indexReporting([['b', 'a']]), 'a', 'b') // ['a', 'b', 'a']
 */
export function findCycle(up: ReadonlyMap<string, readonly string[]>, source: string, target: string): string[] | null {
  if (source === target) return [source, source];
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

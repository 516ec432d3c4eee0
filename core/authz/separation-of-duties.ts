/**
 * Separation of duties: pairs of scopes that one member may not hold together.
 *
 * A half counts as held when some held scope reaches it ({@link scopeReaches}): a wildcard such as
 * `org.*` or `*` holds both halves, and so does a constrained grant such as
 * `org.member.invite:team=A` (otherwise a pair could be assembled from constrained pieces). A grant
 * with an unfilled `*` value grants nothing and holds no half. Owner and Admin are exempt; that
 * exemption is the caller's, these functions only report.
 *
 * @see docs/api/roles.md (separation-of-duties forbidden pairs)
 */
import { parseScope, type ScopeExpression } from './scope-expression.ts';
import { scopeReaches } from './scope-match.ts';

/**
 * One forbidden pair: holding both `a` and `b` is a conflict.
 * @see docs/api/roles.md
 */
export interface SodPair {
  readonly a: string;
  readonly b: string;
}

/**
 * A conflict found; `introduced` (from {@link checkAssignment} only) is false when it was held before.
 * @see docs/api/roles.md
 */
export interface SodConflict extends SodPair {
  readonly introduced?: boolean;
}

/**
 * The forbidden pairs, as in the spec's table.
 * @see docs/api/roles.md
 */
export const SOD_PAIRS: readonly SodPair[] = Object.freeze([
  { a: 'org.permission.create', b: 'org.audit_event_log.delete' },
  { a: 'org.role.assign', b: 'org.audit_event_log.delete' },
  { a: 'org.reporting_instance.create', b: 'org.reporting_instance.approval_step.update' },
  { a: 'org.member.invite', b: 'org.member.revoke' },
].map((pair) => Object.freeze(pair)));

const PARSED_PAIRS = SOD_PAIRS.map((pair) => ({ pair, a: parseScope(pair.a), b: parseScope(pair.b) }));

function holds(held: readonly ScopeExpression[], half: ScopeExpression): boolean {
  return held.some((h) => scopeReaches(h, half));
}

/**
 * Lists the forbidden pairs whose both halves are held.
 *
 * @param scopes - held scope texts
 * @returns one `{ a, b }` per conflicting pair, in {@link SOD_PAIRS} order; empty when none
 * @throws {@link ScopeSyntaxError} when a text is malformed
 * @example findSodConflicts(['org.member.*']) // [{ a: 'org.member.invite', b: 'org.member.revoke' }]
 * @see docs/api/roles.md
 */
export function findSodConflicts(scopes: readonly string[]): SodConflict[] {
  const held = scopes.map(parseScope);
  return PARSED_PAIRS.filter(({ a, b }) => holds(held, a) && holds(held, b)).map(({ pair }) => ({ a: pair.a, b: pair.b }));
}

/**
 * The conflicts an assignment would leave: every pair held by the union of `held` and `adding`.
 *
 * A non-empty result means the assignment is refused (audit `auth.sod.assignment_blocked`). Pairs
 * already held before count too, so a member who holds both halves fails on the next grant; each
 * conflict says whether this assignment `introduced` it.
 *
 * @param held - the member's current scopes
 * @param adding - the scopes the assignment would add
 * @returns conflicts of the union with `introduced`; empty when the assignment may proceed
 * @throws {@link ScopeSyntaxError} when a text is malformed
 * @see docs/api/roles.md
 */
export function checkAssignment(held: readonly string[], adding: readonly string[]): SodConflict[] {
  const before = new Set(findSodConflicts(held).map((c) => c.a + ' ' + c.b));
  return findSodConflicts([...held, ...adding]).map((c) => ({ ...c, introduced: !before.has(c.a + ' ' + c.b) }));
}

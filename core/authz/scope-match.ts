/**
 * Whether one held scope grants a required scope.
 *
 * Rules, in order:
 * 1. Base. A plain held base grants only the same base. A wildcard held base grants every base
 *    under its prefix on a dot boundary: `org.*` grants `org.project.read` and `org.project.*`,
 *    `org.project.*` does not grant `org.*` nor `org.projects.read`; `*` grants everything.
 * 2. Constraints. Every constraint of the HELD scope must be satisfied by the REQUIRED scope's
 *    constraint on the same key; constraints the held scope lacks are free (an unconstrained held
 *    scope grants any constrained required scope of its base, never the other way round).
 *    - held `k=v` is satisfied by required `k=v`;
 *    - held `k!=v` is satisfied by required `k=w` (w ≠ v) and by required `k!=v`;
 *    - a held constraint with value `*` (unfilled guest variable) is never satisfied, and a required
 *      value `*` satisfies no held constraint.
 * 3. `actor`. The value `self` of the `actor` key stands for the caller: when the context names a
 *    `principalId`, `self` on either side is replaced by it before comparing, so held `actor=self`
 *    grants required `actor=self` and `actor=<principalId>`. A required scope without an `actor`
 *    constraint takes `context.actorId` (the actor the request is about) as its value, so held
 *    `actor=self` grants `org.audit_event_log.list` with `{ actorId: me, principalId: me }`.
 *
 * @see docs/api/roles.md
 */
import { toScope, UNFILLED_VALUE, type ScopeConstraint, type ScopeExpression } from './scope-expression.ts';

/**
 * The constraint key whose value `self` means the calling principal.
 * @see docs/api/roles.md
 */
export const SELF_KEY = 'actor';

/**
 * The value of {@link SELF_KEY} that stands for the calling principal.
 * @see docs/api/roles.md
 */
export const SELF_VALUE = 'self';

/**
 * Facts about the request that the `actor=self` rule needs (both optional).
 *
 * `principalId`: who is calling (a member, API key or agent id). `actorId`: whose data the request
 * is about, used when the required scope carries no `actor` constraint of its own.
 * @see docs/api/roles.md
 */
export interface ScopeContext {
  readonly principalId?: string;
  readonly actorId?: string;
}

/**
 * Whether a held base covers a required base (rule 1 above); no constraint is looked at.
 *
 * @param held - the held expression (plain or wildcard)
 * @param required - the required expression (plain or wildcard)
 * @see docs/api/roles.md
 */
export function baseCovers(held: ScopeExpression, required: ScopeExpression): boolean {
  if (!held.wildcard) return held.base === required.base;
  // `org.*` → prefix `org.`; `*` → prefix `` (everything). The kept dot enforces the segment boundary.
  return required.base.startsWith(held.base.slice(0, -1));
}

function resolveSelf(key: string, value: string, context: ScopeContext | undefined): string {
  return key === SELF_KEY && value === SELF_VALUE && context?.principalId !== undefined ? context.principalId : value;
}

function requiredConstraint(
  required: ScopeExpression,
  key: string,
  context: ScopeContext | undefined,
): Pick<ScopeConstraint, 'op' | 'value'> | undefined {
  const found = required.constraints.find((c) => c.key === key);
  if (found) return found;
  if (key === SELF_KEY && context?.actorId !== undefined) return { op: '=', value: context.actorId };
  return undefined;
}

/**
 * Whether one held constraint is satisfied by the required scope (rules 2 and 3 above).
 *
 * @param held - one constraint of the held scope
 * @param required - the whole required expression
 * @param context - optional caller facts for `actor=self`
 * @see docs/api/roles.md
 */
export function constraintSatisfied(held: ScopeConstraint, required: ScopeExpression, context?: ScopeContext): boolean {
  if (held.value === UNFILLED_VALUE) return false;
  const req = requiredConstraint(required, held.key, context);
  if (!req || req.value === UNFILLED_VALUE) return false;
  const heldValue = resolveSelf(held.key, held.value, context);
  const reqValue = resolveSelf(held.key, req.value, context);
  if (held.op === '=') return req.op === '=' && reqValue === heldValue;
  return req.op === '=' ? reqValue !== heldValue : reqValue === heldValue;
}

type ConstraintTest = (held: ScopeConstraint, required: ScopeExpression, context?: ScopeContext) => boolean;

function compare(
  held: string | ScopeExpression,
  required: string | ScopeExpression,
  context: ScopeContext | undefined,
  test: ConstraintTest,
): boolean {
  const h = toScope(held);
  const r = toScope(required);
  return baseCovers(h, r) && h.constraints.every((c) => test(c, r, context));
}

/** A held constraint leaves some narrowing of `required` granted (see {@link scopeReaches}). */
const constraintReachable: ConstraintTest = (held, required, context) =>
  held.value !== UNFILLED_VALUE &&
  (requiredConstraint(required, held.key, context) === undefined || constraintSatisfied(held, required, context));

/**
 * Whether the held scope grants the required scope.
 *
 * @param held - a held grant, text or parsed (e.g. `org.project.read:project=P1`, `org.*`)
 * @param required - what the operation needs (e.g. `org.project.read:project=P1`)
 * @param context - optional `{ principalId, actorId }` for the `actor=self` rule
 * @returns true when every request allowed by `required` is allowed by `held`
 * @throws {@link ScopeSyntaxError} when either text is malformed
 * @example scopeGrants('org.project.read:project=*', 'org.project.read:project=P1') // false
 * @see docs/api/roles.md
 */
export function scopeGrants(
  held: string | ScopeExpression,
  required: string | ScopeExpression,
  context?: ScopeContext,
): boolean {
  return compare(held, required, context, constraintSatisfied);
}

/**
 * Whether the held scope grants the required scope for at least one way of narrowing it: the base
 * is covered, no held value is unfilled, and every held constraint on a key the required scope also
 * constrains is satisfied. Used by separation of duties, where `org.member.invite:team=A` still
 * counts as holding `org.member.invite`.
 *
 * @param held - a held grant, text or parsed
 * @param required - the scope to reach, text or parsed
 * @param context - optional caller facts for `actor=self`
 * @throws {@link ScopeSyntaxError} when either text is malformed
 * @example scopeReaches('org.member.invite:team=A', 'org.member.invite') // true
 * @see docs/api/roles.md
 */
export function scopeReaches(
  held: string | ScopeExpression,
  required: string | ScopeExpression,
  context?: ScopeContext,
): boolean {
  return compare(held, required, context, constraintReachable);
}

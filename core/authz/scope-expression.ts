/**
 * Scope expressions: the text form `namespace.resource.action[:key{op}value,...]` and its parsed shape.
 *
 * Grammar (checked by {@link parseScope}):
 * - base: dot-separated segments `[a-z0-9_]+`, at least two (`view.business`); the first is the
 *   namespace, the last the action, the ones between the resource path
 *   (`org.device_identity.device_binding.update` has resource `device_identity.device_binding`).
 * - wildcard base: `*` alone, or `*` as the whole last segment (`org.*`, `org.project.*`).
 * - constraints: after one `:`, a comma-separated list of `key{op}value`; keys
 *   `[a-zA-Z_][a-zA-Z0-9_]*`, each key at most once; operators `=` and `!=`; values non-empty,
 *   without `,`, `:`, whitespace or control characters (OAuth `scope` parameters are
 *   space-delimited, so a space inside a value would split the scope in transit).
 * - the value `*` is legal and means "unfilled variable" (see `scope-match.ts`).
 *
 * @see docs/api/roles.md
 */
import { AerieError } from '../errors.ts';

/**
 * Constraint operators: `=` (the key must be this value) and `!=` (any value but this one).
 * @see docs/api/roles.md
 */
export type ScopeOperator = '=' | '!=';

/**
 * One `key{op}value` constraint of a scope expression, e.g. `{ key: 'project', op: '=', value: 'P1' }`.
 * @see docs/api/roles.md
 */
export interface ScopeConstraint {
  readonly key: string;
  readonly op: ScopeOperator;
  readonly value: string;
}

/**
 * A parsed scope expression (frozen).
 *
 * Shape for `org.project.read:project=P1`:
 * `{ base: 'org.project.read', namespace: 'org', resource: 'project', action: 'read', wildcard: false,
 *    constraints: [{ key: 'project', op: '=', value: 'P1' }] }`.
 * For `view.business` the resource is `''`; for `*` the namespace and action are `'*'`; for `org.*`
 * the action is `'*'` and `wildcard` is true. Constraints are sorted by key.
 * @see docs/api/roles.md
 */
export interface ScopeExpression {
  readonly base: string;
  readonly namespace: string;
  readonly resource: string;
  readonly action: string;
  readonly wildcard: boolean;
  readonly constraints: readonly ScopeConstraint[];
}

/**
 * The longest scope text accepted, in UTF-16 code units; a bound on work done for untrusted input.
 * @see docs/api/roles.md
 */
export const MAX_SCOPE_LENGTH = 1024;

/**
 * The value of an unfilled guest-role variable; a held constraint with this value matches no id.
 * @see docs/api/roles.md
 */
export const UNFILLED_VALUE = '*';

/**
 * Thrown by {@link parseScope} for malformed scope text; rendered as 400 `INVALID_SCOPE`.
 *
 * An {@link AerieError} with `status` 400, `code` `'INVALID_SCOPE'` (also static), `expose` true (the
 * message names only the caller's own input), envelope field `scope` (the rejected text), and
 * `reason` (what is wrong with it).
 * @see docs/api/roles.md
 */
export class ScopeSyntaxError extends AerieError {
  static readonly code = 'INVALID_SCOPE';

  /**
   * @param scope - the rejected text (cut to 100 characters in the message and envelope)
   * @param reason - what is wrong, e.g. `empty segment`
   */
  constructor(readonly scope: string, readonly reason: string) {
    super(400, ScopeSyntaxError.code, `Invalid scope expression "${scope.slice(0, 100)}": ${reason}`, {
      scope: scope.slice(0, 100),
    });
    this.name = 'ScopeSyntaxError';
  }
}

const SEGMENT = /^[a-z0-9_]+$/;
const CONSTRAINT = /^([a-zA-Z_][a-zA-Z0-9_]*)(!=|=)(.*)$/s;
// eslint-disable-next-line no-control-regex
const BAD_VALUE_CHAR = /[,:\s\u0000-\u001f\u007f]/;

type ScopeHead = Omit<ScopeExpression, 'constraints'>;

function parseBase(text: string, base: string): ScopeHead {
  if (base === '*') return { base, namespace: '*', resource: '', action: '*', wildcard: true };
  const segments = base.split('.');
  const last = segments.length - 1;
  for (let i = 0; i <= last; i++) {
    const segment = segments[i];
    if (segment === '') throw new ScopeSyntaxError(text, 'empty segment');
    if (!SEGMENT.test(segment) && !(segment === '*' && i === last)) {
      throw new ScopeSyntaxError(text, `segment "${segment}" must match [a-z0-9_]+ ("*" only as the whole last segment)`);
    }
  }
  if (last < 1) throw new ScopeSyntaxError(text, 'a scope needs at least a namespace and an action');
  return {
    base,
    namespace: segments[0],
    resource: last > 1 ? segments.slice(1, last).join('.') : '',
    action: segments[last],
    wildcard: segments[last] === '*',
  };
}

function parseConstraint(text: string, item: string): ScopeConstraint {
  if (item === '') throw new ScopeSyntaxError(text, 'empty constraint');
  const m = CONSTRAINT.exec(item);
  if (!m) throw new ScopeSyntaxError(text, `constraint "${item}" must be key=value or key!=value`);
  const [, key, op, value] = m;
  if (value === '') throw new ScopeSyntaxError(text, `constraint "${key}" has no value`);
  if (BAD_VALUE_CHAR.test(value)) {
    throw new ScopeSyntaxError(text, `value of "${key}" contains a forbidden character`);
  }
  return Object.freeze({ key, op: op as ScopeOperator, value });
}

function byKey(a: ScopeConstraint, b: ScopeConstraint): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * Parses scope text into a frozen {@link ScopeExpression} with constraints sorted by key.
 *
 * @param text - e.g. `org.project.read:project=P1`, `org.audit_event_log.list_system:system!=payment`, `org.*`
 * @returns the parsed expression
 * @throws {@link ScopeSyntaxError} (`INVALID_SCOPE`) on a non-string, empty or over-long text, an empty
 *   or badly spelled segment, a misplaced `*`, a single-segment base, an empty constraint list or
 *   item, a bad key, a missing value, a forbidden value character, or a duplicate key
 * @example parseScope('org.project.read:project=P1').constraints // [{ key: 'project', op: '=', value: 'P1' }]
 * @see docs/api/roles.md
 */
export function parseScope(text: string): ScopeExpression {
  if (typeof text !== 'string') throw new ScopeSyntaxError(String(text), 'not a string');
  if (text === '') throw new ScopeSyntaxError(text, 'empty');
  if (text.length > MAX_SCOPE_LENGTH) throw new ScopeSyntaxError(text, `longer than ${MAX_SCOPE_LENGTH} characters`);
  const colon = text.indexOf(':');
  const head = parseBase(text, colon < 0 ? text : text.slice(0, colon));
  const constraints = colon < 0 ? [] : text.slice(colon + 1).split(',').map((item) => parseConstraint(text, item));
  constraints.sort(byKey);
  for (let i = 1; i < constraints.length; i++) {
    if (constraints[i].key === constraints[i - 1].key) {
      throw new ScopeSyntaxError(text, `duplicate constraint key "${constraints[i].key}"`);
    }
  }
  // Built field by field: spreading `head` into a frozen object is ten times slower in V8.
  const { base, namespace, resource, action, wildcard } = head;
  return Object.freeze({ base, namespace, resource, action, wildcard, constraints: Object.freeze(constraints) });
}

/**
 * Formats an expression as canonical text: the base, then constraints sorted by key.
 *
 * Does not validate: pass expressions from {@link parseScope} (or built to its grammar).
 * @param expr - a scope expression
 * @returns canonical text, e.g. `org.project.read:a=1,b!=2` for constraints given as `b!=2,a=1`
 * @example formatScope(parseScope('x.y.z:b=2,a=1')) // 'x.y.z:a=1,b=2'
 * @see docs/api/roles.md
 */
export function formatScope(expr: ScopeExpression): string {
  if (expr.constraints.length === 0) return expr.base;
  const parts = [...expr.constraints].sort(byKey).map((c) => `${c.key}${c.op}${c.value}`);
  return `${expr.base}:${parts.join(',')}`;
}

/**
 * Parses text, or returns an already parsed expression unchanged.
 *
 * @param scope - scope text or a parsed expression
 * @throws {@link ScopeSyntaxError} when `scope` is malformed text
 * @see docs/api/roles.md
 */
export function toScope(scope: string | ScopeExpression): ScopeExpression {
  return typeof scope === 'string' ? parseScope(scope) : scope;
}

/**
 * Whether the expression carries an unfilled (`*`) constraint value, which makes it grant nothing.
 *
 * @param expr - a parsed scope expression
 * @see docs/api/roles.md (assigning a guest role without its variable grants nothing)
 */
export function hasUnfilledValue(expr: ScopeExpression): boolean {
  return expr.constraints.some((c) => c.value === UNFILLED_VALUE);
}

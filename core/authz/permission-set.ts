/**
 * A member's grants, indexed once so that `has()` costs a few map look-ups instead of a scan.
 *
 * Index: one bucket per held base (plain `org.project.read` or wildcard `org.project.*`, `*`). A
 * required scope looks only at the buckets of its own base and of the wildcards above it. Inside a
 * bucket, an unconstrained grant answers at once, single `key=value` grants sit in a set keyed by
 * `key=value`, and the rest (`!=`, several constraints, `actor`) are checked with {@link scopeGrants}.
 * Grants with an unfilled `*` value are kept for `toArray()` but never indexed: they grant nothing.
 *
 * Caches: parsed texts (held and required) are shared by every set, since a set is typically built
 * per request from the same stored grants; each set also remembers its answers (both bounded),
 * since its grants never change.
 *
 * @see docs/api/roles.md
 */
import { formatScope, hasUnfilledValue, parseScope, UNFILLED_VALUE, type ScopeExpression } from './scope-expression.ts';
import { scopeGrants, SELF_KEY, type ScopeContext } from './scope-match.ts';

interface Bucket {
  unconstrained: boolean;
  /** Some grant here constrains `actor`, so answers from this bucket may depend on the context. */
  actor: boolean;
  readonly equals: Set<string>;
  readonly others: ScopeExpression[];
}

interface Prepared {
  readonly expr: ScopeExpression;
  /** Held bases that could cover this one: its own (unless wildcard) and every wildcard above it. */
  readonly candidates: readonly string[];
  /** `key=value` of its `=` constraints, to probe the buckets' `equals` sets. */
  readonly equalsKeys: readonly string[];
}

/**
 * Most entries kept in the shared parse cache (held and required texts) and in each answer cache.
 * @see docs/api/roles.md
 */
export const PERMISSION_CACHE_SIZE = 4096;

/** Stores into a map that forgets its oldest entry when full: enough for a hot set of route scopes. */
function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= PERMISSION_CACHE_SIZE) map.delete(map.keys().next().value as string);
  map.set(key, value);
  return value;
}

/** {@link remember} for a set. */
function rememberIn(set: Set<string>, key: string): void {
  if (set.size >= PERMISSION_CACHE_SIZE) set.delete(set.values().next().value as string);
  set.add(key);
}

const preparedTexts = new Map<string, Prepared>();
const preparedExprs = new WeakMap<ScopeExpression, Prepared>();

function candidateBases(expr: ScopeExpression): string[] {
  // `a.b.c` → [a.b.c, a.b.*, a.*, *]; `a.b.*` → [a.b.*, a.*, *]; `*` → [*].
  const segments = expr.base.split('.');
  const out = expr.wildcard ? [] : [expr.base];
  for (let n = segments.length - 1; n > 0; n--) out.push(`${segments.slice(0, n).join('.')}.*`);
  out.push('*');
  return out;
}

function prepare(expr: ScopeExpression): Prepared {
  let p = preparedExprs.get(expr);
  if (!p) {
    const equalsKeys = expr.constraints
      .filter((c) => c.op === '=' && c.value !== UNFILLED_VALUE && c.key !== SELF_KEY)
      .map((c) => `${c.key}=${c.value}`);
    p = { expr, candidates: candidateBases(expr), equalsKeys };
    preparedExprs.set(expr, p);
  }
  return p;
}

function prepareText(text: string): Prepared {
  return preparedTexts.get(text) ?? remember(preparedTexts, text, prepare(parseScope(text)));
}

/**
 * An immutable set of held scopes answering "does this member hold that scope?".
 *
 * @example
 * const perms = new PermissionSet(['org.project.read:project=P1', 'org.meeting.*']);
 * perms.has('org.project.read:project=P1'); // true
 * perms.has('org.meeting.list');             // true
 * perms.has('org.project.read');             // false
 * @see docs/api/roles.md
 */
export class PermissionSet {
  private readonly grants: ScopeExpression[] = [];
  private readonly buckets = new Map<string, Bucket>();
  // Answer caches by required text. `granted` / `refused` hold answers no context can change
  // (`granted` is seeded with the held texts: each grants itself); `contextual` holds the
  // context-free answer of texts that a held `actor` constraint makes depend on the context.
  // Sets rather than one Map: a Set probe is the cheapest look-up V8 has, and the hot path is one.
  private readonly granted = new Set<string>();
  private readonly refused = new Set<string>();
  private readonly contextual = new Map<string, boolean>();

  /**
   * @param scopes - held scope texts or parsed expressions; duplicates are merged
   * @throws {@link ScopeSyntaxError} when a held text is malformed
   */
  constructor(scopes: Iterable<string | ScopeExpression> = []) {
    const seen = new Set<string>();
    for (const scope of scopes) {
      const expr = typeof scope === 'string' ? prepareText(scope).expr : scope;
      const canonical = formatScope(expr);
      if (seen.has(canonical)) continue;
      seen.add(canonical);
      this.grants.push(expr);
      if (hasUnfilledValue(expr)) continue;
      this.granted.add(canonical);
      if (typeof scope === 'string') this.granted.add(scope);
      this.index(expr);
    }
  }

  private index(expr: ScopeExpression): void {
    let bucket = this.buckets.get(expr.base);
    if (!bucket) {
      bucket = { unconstrained: false, actor: false, equals: new Set(), others: [] };
      this.buckets.set(expr.base, bucket);
    }
    const [only] = expr.constraints;
    if (expr.constraints.length === 0) bucket.unconstrained = true;
    else if (expr.constraints.length === 1 && only.op === '=' && only.key !== SELF_KEY) {
      bucket.equals.add(`${only.key}=${only.value}`);
    } else bucket.others.push(expr);
    if (expr.constraints.some((c) => c.key === SELF_KEY)) bucket.actor = true;
  }

  /** Number of distinct held scopes (canonical), including ones that grant nothing. */
  get size(): number {
    return this.grants.length;
  }

  /**
   * Whether some held scope grants `required` (same answer as {@link scopeGrants} over the grants).
   *
   * @param required - the scope an operation needs, text or parsed
   * @param context - optional `{ principalId, actorId }` for the `actor=self` rule
   * @throws {@link ScopeSyntaxError} when `required` is malformed text
   */
  has(required: string | ScopeExpression, context?: ScopeContext): boolean {
    // Kept small so V8 inlines it: the common case is one set probe.
    if (typeof required !== 'string') return this.evaluate(prepare(required), context);
    if (this.granted.has(required)) return true;
    if (this.refused.has(required)) return false;
    return this.answer(required, context);
  }

  private answer(required: string, context: ScopeContext | undefined): boolean {
    const free = this.contextual.get(required);
    if (free !== undefined) return context ? this.evaluate(prepareText(required), context) : free;
    const p = prepareText(required);
    const answer = this.evaluate(p, undefined);
    if (p.candidates.some((base) => this.buckets.get(base)?.actor === true)) {
      remember(this.contextual, required, answer);
      return context ? this.evaluate(p, context) : answer;
    }
    rememberIn(answer ? this.granted : this.refused, required);
    return answer;
  }

  private evaluate(p: Prepared, context: ScopeContext | undefined): boolean {
    for (const base of p.candidates) {
      const bucket = this.buckets.get(base);
      if (!bucket) continue;
      if (bucket.unconstrained) return true;
      for (const key of p.equalsKeys) if (bucket.equals.has(key)) return true;
      for (const held of bucket.others) if (scopeGrants(held, p.expr, context)) return true;
    }
    return false;
  }

  /**
   * A new set holding the scopes of both.
   *
   * @param other - another set, or scope texts / expressions
   * @throws {@link ScopeSyntaxError} when a text in `other` is malformed
   */
  union(other: PermissionSet | Iterable<string | ScopeExpression>): PermissionSet {
    const more = other instanceof PermissionSet ? other.grants : other;
    return new PermissionSet([...this.grants, ...more]);
  }

  /** The held scopes as canonical texts, in first-seen order, without duplicates. */
  toArray(): string[] {
    return this.grants.map(formatScope);
  }
}

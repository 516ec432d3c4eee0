import { ScimFilterError, type AttrPath, type CompValue, type CompareOp, type FilterNode } from './ast.ts';

/** Longest filter accepted, in characters. */
export const MAX_FILTER_LENGTH = 4096;
/** Deepest nesting of parentheses, `not` and value paths accepted. */
export const MAX_FILTER_DEPTH = 32;

const OPS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);

type Token =
  | { t: 'word'; v: string; at: number }
  | { t: 'string'; v: string; at: number }
  | { t: 'number'; v: number; at: number }
  | { t: '(' | ')' | '[' | ']'; at: number };

/**
 * Parses a SCIM filter (RFC 7644 §3.4.2.2): `attrPath pr`, `attrPath op value` (`eq ne co sw ew
 * gt ge lt le`), `and`, `or` (and binds tighter), `not (…)`, parentheses, value paths
 * `emails[type eq "work"]` and the `emails[type eq "work"].value eq "x"` form. Operators and logical
 * words are case-insensitive; strings are JSON strings.
 * @throws ScimFilterError for anything else, for a filter over {@link MAX_FILTER_LENGTH} characters
 *   or nested deeper than {@link MAX_FILTER_DEPTH} (checked before any recursion can grow).
 */
export function parseFilter(text: string): FilterNode {
  if (typeof text !== 'string' || text.trim() === '') throw new ScimFilterError('The filter is empty.');
  if (text.length > MAX_FILTER_LENGTH) throw new ScimFilterError(`The filter is longer than ${MAX_FILTER_LENGTH} characters.`);
  const tokens = tokenize(text);
  let depth = 0;
  for (const tok of tokens) {
    if (tok.t === '(' || tok.t === '[') depth += 1;
    if (tok.t === ')' || tok.t === ']') depth -= 1;
    if (depth > MAX_FILTER_DEPTH) throw new ScimFilterError(`The filter is nested deeper than ${MAX_FILTER_DEPTH} levels.`);
  }
  const p = new Parser(tokens);
  const node = p.filter(0, false);
  if (!p.done()) throw new ScimFilterError(`Unexpected ${p.describe()}.`);
  return node;
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i += 1;
    } else if (c === '(' || c === ')' || c === '[' || c === ']') {
      out.push({ t: c, at: i });
      i += 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new ScimFilterError(`Unterminated string at ${i}.`);
      try {
        out.push({ t: 'string', v: JSON.parse(text.slice(i, j + 1)) as string, at: i });
      } catch {
        throw new ScimFilterError(`Invalid string at ${i}.`);
      }
      i = j + 1;
    } else if (/[-0-9]/.test(c)) {
      const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(i));
      if (!m) throw new ScimFilterError(`Invalid number at ${i}.`);
      out.push({ t: 'number', v: Number(m[0]), at: i });
      i += m[0].length;
    } else if (c === '.' && out.at(-1)?.t === ']') {
      // `emails[type eq "work"].value`: the sub-attribute after a value filter.
      const m = /^\.[A-Za-z][A-Za-z0-9_$-]*/.exec(text.slice(i));
      if (!m) throw new ScimFilterError(`Invalid sub-attribute at ${i}.`);
      out.push({ t: 'word', v: m[0], at: i });
      i += m[0].length;
    } else if (/[A-Za-z_$]/.test(c)) {
      // Attribute paths, URNs (`urn:ietf:params:scim:schemas:core:2.0:User:userName`), operators, literals.
      const m = /^[A-Za-z_$][A-Za-z0-9_$:.\-]*/.exec(text.slice(i))!;
      out.push({ t: 'word', v: m[0], at: i });
      i += m[0].length;
    } else {
      throw new ScimFilterError(`Unexpected character ${JSON.stringify(c)} at ${i}.`);
    }
  }
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  done(): boolean {
    return this.i >= this.tokens.length;
  }

  describe(): string {
    const tok = this.tokens[this.i];
    if (!tok) return 'end of filter';
    return `${'v' in tok ? JSON.stringify(tok.v) : tok.t} at ${tok.at}`;
  }

  /** `or` of `and`s; `inValuePath` forbids nested value paths (RFC: valFilter has none). */
  filter(depth: number, inValuePath: boolean): FilterNode {
    let left = this.conjunction(depth, inValuePath);
    while (this.isWord('or')) {
      this.i += 1;
      left = { kind: 'or', left, right: this.conjunction(depth, inValuePath) };
    }
    return left;
  }

  private conjunction(depth: number, inValuePath: boolean): FilterNode {
    let left = this.unary(depth, inValuePath);
    while (this.isWord('and')) {
      this.i += 1;
      left = { kind: 'and', left, right: this.unary(depth, inValuePath) };
    }
    return left;
  }

  private unary(depth: number, inValuePath: boolean): FilterNode {
    if (this.isWord('not')) {
      this.i += 1;
      this.expect('(');
      const inner = this.filter(depth + 1, inValuePath);
      this.expect(')');
      return { kind: 'not', filter: inner };
    }
    if (this.peek()?.t === '(') {
      this.i += 1;
      const inner = this.filter(depth + 1, inValuePath);
      this.expect(')');
      return inner;
    }
    return this.attrExp(depth, inValuePath);
  }

  private attrExp(depth: number, inValuePath: boolean): FilterNode {
    const tok = this.peek();
    if (!tok || tok.t !== 'word') throw new ScimFilterError(`Expected an attribute, found ${this.describe()}.`);
    this.i += 1;
    const path = parseAttrPath(tok.v, tok.at);
    if (this.peek()?.t === '[') {
      if (inValuePath) throw new ScimFilterError(`A value filter cannot hold another at ${tok.at}.`);
      if (path.sub) throw new ScimFilterError(`A value filter applies to a multi-valued attribute, not ${tok.v}, at ${tok.at}.`);
      this.i += 1;
      const inner = this.filter(depth + 1, true);
      this.expect(']');
      const next = this.peek();
      if (next?.t === 'word' && next.v.startsWith('.')) {
        // `emails[type eq "work"].value eq "x"`: a test on the matching element's sub-attribute.
        this.i += 1;
        const sub = next.v.slice(1);
        if (!/^[A-Za-z][A-Za-z0-9_$-]*$/.test(sub)) throw new ScimFilterError(`Invalid sub-attribute ${JSON.stringify(next.v)} at ${next.at}.`);
        const op = this.operator();
        if (op === 'pr') return { kind: 'valuePath', path, filter: inner, then: { sub, op } };
        return { kind: 'valuePath', path, filter: inner, then: { sub, op, value: this.value() } };
      }
      return { kind: 'valuePath', path, filter: inner };
    }
    const op = this.operator();
    if (op === 'pr') return { kind: 'present', path };
    return { kind: 'compare', path, op, value: this.value() };
  }

  private operator(): CompareOp | 'pr' {
    const tok = this.peek();
    const word = tok?.t === 'word' ? tok.v.toLowerCase() : '';
    if (word !== 'pr' && !OPS.has(word)) throw new ScimFilterError(`Expected an operator (eq ne co sw ew gt ge lt le pr), found ${this.describe()}.`);
    this.i += 1;
    return word as CompareOp | 'pr';
  }

  private value(): CompValue {
    const tok = this.peek();
    this.i += 1;
    if (tok?.t === 'string' || tok?.t === 'number') return tok.v;
    if (tok?.t === 'word') {
      const w = tok.v.toLowerCase();
      if (w === 'true') return true;
      if (w === 'false') return false;
      if (w === 'null') return null;
    }
    this.i -= 1;
    throw new ScimFilterError(`Expected a value (string, number, true, false, null), found ${this.describe()}.`);
  }

  private expect(t: '(' | ')' | ']'): void {
    if (this.peek()?.t !== t) throw new ScimFilterError(`Expected "${t}", found ${this.describe()}.`);
    this.i += 1;
  }

  private isWord(w: string): boolean {
    const tok = this.peek();
    return tok?.t === 'word' && tok.v.toLowerCase() === w;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }
}

/**
 * Splits `[urn:…:]attr[.sub]`. The URN is everything up to the last `:` (URNs contain dots, as in
 * `…:core:2.0:User`). @throws ScimFilterError for an empty or malformed name.
 */
export function parseAttrPath(text: string, at = 0): AttrPath {
  const colon = text.lastIndexOf(':');
  const urn = colon >= 0 ? text.slice(0, colon) : undefined;
  const rest = colon >= 0 ? text.slice(colon + 1) : text;
  const m = /^([A-Za-z][A-Za-z0-9_$-]*)(?:\.([A-Za-z][A-Za-z0-9_$-]*))?$/.exec(rest);
  if (!m || (urn !== undefined && !/^urn:[A-Za-z0-9.:_-]+$/i.test(urn))) throw new ScimFilterError(`Invalid attribute path ${JSON.stringify(text)} at ${at}.`);
  return { ...(urn ? { urn } : {}), attr: m[1]!, ...(m[2] ? { sub: m[2] } : {}) };
}

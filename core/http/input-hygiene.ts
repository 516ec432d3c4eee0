/**
 * Text and numbers every route refuses, whatever its schema says: checked once by the kernel on path
 * parameters, the query and the JSON body, so no NUL byte, lone surrogate or non-finite number ever
 * reaches a handler or PostgreSQL (which refuses U+0000 in text with a 500).
 * @see docs/api/errors.md "Text and numbers every route refuses"
 */
import { validationFailed } from '../errors.ts';
import { hasBadText } from '../validation.ts';

/**
 * Walks `value` without recursion (a body nested 100,000 deep costs no stack) and throws on the
 * first string or key with U+0000 or a lone surrogate, or a number that is NaN or ±Infinity
 * (`1e999` in JSON, `limit=1e309` coerced from a query string).
 * @param value - parsed params, query or body.
 * @param root - `params`, `query` or `body`: names the field when the problem is at the top.
 * @throws AerieError 400 `VALIDATION_FAILED` with `field` (dotted path, e.g. `events.3.name`).
 * @example assertCleanInput({ name: 'a\u0000' }, 'body') // throws: name must not contain NUL characters or lone surrogates
 */
export function assertCleanInput(value: unknown, root: 'params' | 'query' | 'body'): void {
  const fail = (path: string, rule: string) => {
    const field = path || root;
    return validationFailed(`${field} ${rule}`, field);
  };
  const rule = scalarProblem(value);
  if (rule) throw fail('', rule);
  if (value === null || typeof value !== 'object') return;
  // Only containers are stacked; scalars are checked where they are met, paths built only for a problem.
  const stack: Frame[] = [{ value, parent: null, key: '' }];
  while (stack.length) {
    const frame = stack.pop()!;
    const v = frame.value as Record<string, unknown>;
    const keys = Array.isArray(v) ? null : Object.keys(v);
    const count = keys ? keys.length : (v as unknown as unknown[]).length;
    for (let i = 0; i < count; i++) {
      const key = keys ? keys[i] : String(i);
      if (keys && hasBadText(key)) throw fail(pathOf(frame), 'has a member name with NUL characters or lone surrogates');
      const child = keys ? v[key] : (v as unknown as unknown[])[i];
      const childRule = scalarProblem(child);
      if (childRule) throw fail(pathOf(frame, key), childRule);
      if (child !== null && typeof child === 'object') stack.push({ value: child, parent: frame, key });
    }
  }
}

/** Why a string or number is refused, or null (also for every other value). */
function scalarProblem(value: unknown): string | null {
  if (typeof value === 'string') return hasBadText(value) ? 'must not contain NUL characters or lone surrogates' : null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'must be a finite number';
  return null;
}

/** An object or array met by {@link assertCleanInput}, with where it sits, to name it in a problem. */
interface Frame {
  value: object;
  parent: Frame | null;
  key: string;
}

/** The dotted path of member `key` of `frame` (e.g. `events.3.name`), or of the frame itself. */
function pathOf(frame: Frame, key?: string): string {
  const keys = key === undefined ? [] : [key];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) keys.push(f.key);
  return keys.reverse().join('.');
}

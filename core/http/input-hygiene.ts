/**
 * Text and numbers every route refuses, whatever its schema says: checked once by the kernel on path
 * parameters, the query and the JSON body, so no NUL byte, lone surrogate or non-finite number ever
 * reaches a handler or PostgreSQL (which refuses U+0000 in text with a 500).
 * @see docs/api/errors.md "Text and numbers every route refuses"
 */
import { validationFailed } from '../errors.ts';

// U+0000, and UTF-16 code units that are not half of a pair (not Unicode text).
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

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
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  const fail = (path: string, rule: string) => {
    const field = path || root;
    return validationFailed(`${field} ${rule}`, field);
  };
  while (stack.length) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === 'string') {
      if (BAD_TEXT.test(v)) throw fail(item.path, 'must not contain NUL characters or lone surrogates');
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw fail(item.path, 'must be a finite number');
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ value: v[i], path: item.path ? `${item.path}.${i}` : String(i) });
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) {
        const path = item.path ? `${item.path}.${key}` : key;
        if (BAD_TEXT.test(key)) throw fail(item.path, 'has a member name with NUL characters or lone surrogates');
        stack.push({ value: child, path });
      }
    }
  }
}

/**
 * The one byte range a `Range` header asks of an object `size` bytes long (RFC 9110 §14):
 * `{ start, end }` (inclusive) for `bytes=a-b`, `bytes=a-` and `bytes=-n`; `'unsatisfiable'` when it
 * starts past the end; `undefined` for no header, another unit, several ranges or a malformed one —
 * the whole object is then answered, as the RFC allows.
 * @example byteRange('bytes=10-19', 100) // { start: 10, end: 19 }
 */
export function byteRange(header: string | string[] | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return undefined;
  return start >= size ? 'unsatisfiable' : { start, end };
}

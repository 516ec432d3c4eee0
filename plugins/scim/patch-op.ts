import { problem, type InputProblem } from './user-input.ts';

/** One operation of a PatchOp: `op` lower-cased; no `path` for the pathless form (then `value` is an object of attributes). */
export interface PatchOperation {
  kind: 'add' | 'replace' | 'remove';
  path?: string;
  value: unknown;
}

/**
 * Reads a PatchOp body (RFC 7644 §3.5.2) as Okta and Entra ID send it: the `Operations` key in any
 * case, `op` in any case, a `path` that is absent, null or empty meaning the pathless form.
 * @param max - the most operations one PatchOp may hold
 * @returns the operations in order, or the refusal: `invalidSyntax` (not a PatchOp, no or too many
 *   operations, an unknown `op`), `invalidPath` (a `path` that is not a string), `noTarget` (`remove`
 *   without a path), `invalidValue` (a pathless `value` that is not an object)
 * @example readPatchOp({ Operations: [{ op: 'Replace', path: 'active', value: 'False' }] }, 100) // [{ kind: 'replace', path: 'active', value: 'False' }]
 */
export function readPatchOp(body: unknown, max: number): PatchOperation[] | InputProblem {
  const found = body && typeof body === 'object' ? Object.entries(body as Record<string, unknown>).find(([k]) => k.toLowerCase() === 'operations')?.[1] : undefined;
  if (!Array.isArray(found)) return problem('invalidSyntax', 'The body is a PatchOp with Operations.');
  if (found.length === 0 || found.length > max) return problem('invalidSyntax', `Operations holds 1 to ${max} operations.`);
  const ops: PatchOperation[] = [];
  for (const raw of found as unknown[]) {
    if (!raw || typeof raw !== 'object') return problem('invalidSyntax', 'Each operation is an object.');
    const { op, path, value } = raw as { op?: unknown; path?: unknown; value?: unknown };
    const kind = typeof op === 'string' ? op.toLowerCase() : '';
    if (kind !== 'add' && kind !== 'replace' && kind !== 'remove') return problem('invalidSyntax', `Unknown op ${JSON.stringify(op)}.`);
    if (path !== undefined && path !== null && typeof path !== 'string') return problem('invalidPath', 'path is a string.');
    if (path === undefined || path === null || path === '') {
      if (kind === 'remove') return problem('noTarget', 'remove needs a path.');
      if (!value || typeof value !== 'object' || Array.isArray(value)) return problem('invalidValue', 'Without a path, value is an object of attributes.');
      ops.push({ kind, value });
    } else ops.push({ kind, path, value });
  }
  return ops;
}

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

/** One attribute an operation targets: the pathless form is one target per key of its `value`. */
export interface PatchTarget {
  kind: PatchOperation['kind'];
  path: string;
  value: unknown;
}

/**
 * The operations as targets, in order: an operation with a `path` is one target; a pathless one
 * (`{ op: replace, value: { displayName, members } }`) is one target per key, its key the path.
 * @example patchTargets([{ kind: 'replace', value: { id: 'g1', displayName: 'Sales' } }]) // [{ kind: 'replace', path: 'id', value: 'g1' }, { kind: 'replace', path: 'displayName', value: 'Sales' }]
 */
export function patchTargets(ops: PatchOperation[]): PatchTarget[] {
  return ops.flatMap(({ kind, path, value }) =>
    path === undefined ? Object.entries(value as Record<string, unknown>).map(([p, v]) => ({ kind, path: p, value: v })) : [{ kind, path, value }]);
}

/** A path split into its parts (RFC 7644 §3.5.2 `attrPath` / `valuePath` with an optional sub-attribute). */
export interface PathParts {
  /** the attribute as sent, without the core URN: `members` */
  name: string;
  /** the attribute, lower-cased: `members` */
  attr: string;
  /** the value filter between the brackets, as sent: `value eq "…"` */
  filter?: string;
  /** the sub-attribute, lower-cased: `value` */
  sub?: string;
}

const PATH = /^([A-Za-z][A-Za-z0-9_$-]*)(?:\[(.*)\])?(?:\.([A-Za-z$][A-Za-z0-9_$-]*))?$/s;

/**
 * Splits a PATCH path of the resource whose core schema is `coreUrn`: the URN prefix (any case) is
 * removed; any other URN, a malformed path or one over `maxLength` characters is 400 `invalidPath`.
 * The value filter is not parsed here. Extensions a resource serves are read before calling this.
 * @example splitPath('urn:ietf:params:scim:schemas:core:2.0:Group:members[value eq "u1"]', GROUP_SCHEMA_URN, 1024) // { name: 'members', attr: 'members', filter: 'value eq "u1"' }
 */
export function splitPath(rawPath: string, coreUrn: string, maxLength: number): PathParts | InputProblem {
  if (rawPath.length > maxLength) return problem('invalidPath', 'path is too long.');
  const path = rawPath.toLowerCase().startsWith(`${coreUrn.toLowerCase()}:`) ? rawPath.slice(coreUrn.length + 1) : rawPath;
  const resource = coreUrn.slice(coreUrn.lastIndexOf(':') + 1);
  if (path.toLowerCase().startsWith('urn:')) return problem('invalidPath', `${rawPath} is not an attribute of the ${resource} schemas Aerie serves.`);
  const m = PATH.exec(path);
  if (!m) return problem('invalidPath', `Invalid path ${JSON.stringify(rawPath)}.`);
  const parts: PathParts = { name: m[1]!, attr: m[1]!.toLowerCase() };
  if (m[2] !== undefined) parts.filter = m[2];
  if (m[3] !== undefined) parts.sub = m[3].toLowerCase();
  return parts;
}

import { isDisplayName } from '../../core/index.ts';
import { ScimFilterError, type FilterNode } from './filter/ast.ts';
import { matchesElement, type ElementSubs } from './filter/match-element.ts';
import { parseFilter } from './filter/parse-filter.ts';
import { GROUP_SCHEMA_URN } from './group-schema.ts';
import { patchTargets, readPatchOp, splitPath, type PatchTarget } from './patch-op.ts';
import type { InputProblem } from './user-input.ts';

/** A Group as a request sets it: name, `externalId` (`null` clears) and the member User ids. */
export interface GroupState {
  displayName: string;
  externalId: string | null;
  members: string[];
}

/** Most member values one request may name (all of them applied in one transaction). */
export const MAX_MEMBER_VALUES = 10_000;
/** Most operations in one PatchOp. */
export const MAX_GROUP_OPERATIONS = 1_000;

const problem = (scimType: InputProblem['scimType'], detail: string): InputProblem => ({ status: 400, scimType, detail });
const isProblem = (x: unknown): x is InputProblem => typeof x === 'object' && x !== null && 'scimType' in x;

function displayName(value: unknown): string | InputProblem {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 100 || !isDisplayName(value)) {
    return problem('invalidValue', 'displayName is 1 to 100 characters, without control or invisible characters.');
  }
  return value.trim();
}

function externalId(value: unknown): string | null | InputProblem {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || value.length > 256 || !isDisplayName(value)) return problem('invalidValue', 'externalId is a string of at most 256 characters.');
  return value.trim() === '' ? null : value;
}

/** `[{ value: "<User id>" , … }]` (or one such object) → the ids; `display`, `$ref`, `type` are ignored. */
function memberValues(value: unknown): string[] | InputProblem {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : null;
  if (!list) return problem('invalidValue', 'members is an array of { "value": "<User id>" }.');
  const ids: string[] = [];
  for (const m of list) {
    const v = m && typeof m === 'object' ? (m as { value?: unknown }).value : undefined;
    if (typeof v !== 'string' || v.length === 0 || v.length > 200) return problem('invalidValue', 'Each member is { "value": "<User id>" }.');
    ids.push(v);
  }
  if (ids.length > MAX_MEMBER_VALUES) return problem('invalidValue', `At most ${MAX_MEMBER_VALUES} members per request.`);
  return ids;
}

/**
 * Reads a full Group (POST, PUT): `displayName` required; `externalId` and `members` optional
 * (absent means none). Attributes Aerie does not keep (`description`, extensions) are accepted and
 * not kept; `id`, `meta`, `schemas` are read-only and ignored.
 */
export function readGroup(body: unknown): GroupState | InputProblem {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return problem('invalidSyntax', 'The body is a SCIM Group object.');
  const b = body as Record<string, unknown>;
  const name = displayName(b.displayName);
  if (isProblem(name)) return name;
  const ext = externalId(b.externalId);
  if (isProblem(ext)) return ext;
  const members = b.members === undefined || b.members === null ? [] : memberValues(b.members);
  if (isProblem(members)) return members;
  return { displayName: name, externalId: ext, members: [...new Set(members)] };
}

/** What a `members[…]` value filter may name: `value` (case-exact) and `type` (always "User"). */
const MEMBER_SUBS: ElementSubs = { value: { type: 'string', caseExact: true }, type: { type: 'string', caseExact: false } };
/** The sub-attributes of a member (RFC 7643 §4.2, `display` as Okta sends it): immutable, a member is added or removed whole. */
const MEMBER_SUB_NAMES = new Set(['value', 'type', '$ref', 'display']);

/** The Group a PatchOp builds up, operation by operation. */
interface Patching {
  id: string;
  state: GroupState;
  members: Set<string>;
  /** member values named by add/replace, for the per-request limit */
  named: number;
}

/** `members`, `members[filter]`: add, replace (the whole list), remove (everyone, a `value` list, or those the filter matches). */
function membersPath(p: Patching, kind: PatchTarget['kind'], filter: string | undefined, value: unknown): InputProblem | ScimFilterError | undefined {
  if (filter !== undefined) {
    if (kind !== 'remove') return problem('invalidPath', 'Add or replace members with path "members" and a list of { value }.');
    let parsed: FilterNode;
    try {
      parsed = parseFilter(filter);
      for (const m of [...p.members]) if (matchesElement(parsed, { value: m, type: 'User' }, 'members', MEMBER_SUBS)) p.members.delete(m);
    } catch (err) {
      if (err instanceof ScimFilterError) return err;
      throw err;
    }
    return undefined;
  }
  if (kind === 'remove' && (value === undefined || value === null)) {
    p.members = new Set();
    return undefined;
  }
  const ids = kind !== 'remove' && value === null ? [] : memberValues(value);
  if (isProblem(ids)) return ids;
  if (kind === 'remove') {
    for (const m of ids) p.members.delete(m);
    return undefined;
  }
  if (kind === 'replace') {
    p.members = new Set();
    p.named = 0;
  }
  p.named += ids.length;
  for (const m of ids) p.members.add(m);
  return undefined;
}

/** One operation on one path of the Group (RFC 7644 §3.5.2): changes `p` or answers the refusal. */
function applyGroupPath(p: Patching, { kind, path, value }: PatchTarget): InputProblem | ScimFilterError | undefined {
  const parts = splitPath(path, GROUP_SCHEMA_URN, 1024);
  if (isProblem(parts)) return parts;
  const { name, attr, filter, sub } = parts;
  if (attr === 'members') {
    if (sub === undefined) return membersPath(p, kind, filter, value);
    if (MEMBER_SUB_NAMES.has(sub)) return problem('mutability', `members.${sub} is immutable: a member is added or removed whole.`);
    return problem('invalidPath', `members has no sub-attribute ${sub}.`);
  }
  if (filter !== undefined) return problem('invalidPath', `${name} is not multi-valued; it takes no value filter.`);
  if (attr === 'meta') return problem('mutability', 'meta is read-only.');
  if (sub !== undefined) return problem('invalidPath', `No attribute ${path} in the Group schema.`);
  switch (attr) {
    case 'displayname': {
      if (kind === 'remove') return problem('invalidValue', 'displayName is required: replace it instead.');
      const n = displayName(value);
      if (isProblem(n)) return n;
      p.state.displayName = n;
      return undefined;
    }
    case 'externalid': {
      const e = kind === 'remove' ? null : externalId(value);
      if (isProblem(e)) return e;
      p.state.externalId = e;
      return undefined;
    }
    case 'id': return kind !== 'remove' && value === p.id ? undefined : problem('mutability', 'id cannot change.');
    case 'schemas': return undefined;
    default: return problem('invalidPath', `No attribute ${path} in the Group schema.`);
  }
}

/**
 * Applies a PatchOp (RFC 7644 §3.5.2) to `current`, in order, and answers the Group it asks for.
 * `op` and the `Operations` key in any case; paths case-insensitive and may be URN-qualified; the
 * pathless form is an object whose keys are paths, only the keys present change (Okta's
 * `{ op: replace, value: { id, displayName } }` renames and never empties the Group).
 * - `displayName`: add/replace renames; remove is 400 `invalidValue` (it is required);
 * - `externalId`: add/replace sets, remove clears;
 * - `members`: add (a list of `{ value }`), replace (the whole list), remove — with a `value` list
 *   only those (Entra ID), without one everyone; `members[<filter on value/type>]`: remove only;
 * - `schemas`: accepted, not kept; `id`: only unchanged; `meta`, `members.value` and the other
 *   member sub-attributes: 400 `mutability`;
 * - anything else — an attribute or sub-attribute the Group schema lacks (`description`), another
 *   schema's URN, a value filter on a single-valued attribute: 400 `invalidPath`.
 * @returns the target state, or the refusal (`invalidSyntax`, `invalidPath`, `invalidValue`, `noTarget`, `mutability`; `invalidFilter` as a ScimFilterError)
 * @see docs/api/scim.md "PATCH paths on Groups"
 */
export function applyGroupPatch(body: unknown, id: string, current: GroupState): GroupState | InputProblem | ScimFilterError {
  const ops = readPatchOp(body, MAX_GROUP_OPERATIONS);
  if (!Array.isArray(ops)) return ops;
  const p: Patching = { id, state: { ...current }, members: new Set(current.members), named: 0 };
  for (const target of patchTargets(ops)) {
    const failed = applyGroupPath(p, target);
    if (failed) return failed;
  }
  if (p.named > MAX_MEMBER_VALUES) return problem('invalidValue', `At most ${MAX_MEMBER_VALUES} members per request.`);
  return { ...p.state, members: [...p.members] };
}

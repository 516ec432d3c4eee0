import { isDisplayName } from '../../core/index.ts';
import { ScimFilterError, type FilterNode } from './filter/ast.ts';
import { matchesElement, type ElementSubs } from './filter/match-element.ts';
import { parseFilter } from './filter/parse-filter.ts';
import { GROUP_SCHEMA_URN } from './group-schema.ts';
import { readPatchOp } from './patch-op.ts';
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

/** Strips the core Group URN: `urn:…:core:2.0:Group:displayName` → `displayName`; lower-cased. */
function bare(path: string): string {
  const p = path.toLowerCase().startsWith(`${GROUP_SCHEMA_URN.toLowerCase()}:`) ? path.slice(GROUP_SCHEMA_URN.length + 1) : path;
  return p.toLowerCase();
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

/**
 * Applies a PatchOp (RFC 7644 §3.5.2) to `current`, in order, and answers the Group it asks for.
 * Understood, in any case of `op`: `add`/`replace` of `displayName` and `externalId`; `add` of
 * `members` (a list of `{ value }`), `replace` of `members` (the whole list), `remove` of
 * `members[value eq "…"]` (any value filter on `value`), of `members` with a `value` list (the form
 * Entra ID sends: only those), of `members` alone (everyone), of `externalId`; and the pathless
 * forms — `{ op: replace, value: { id, displayName, externalId, members } }` as Okta sends it, where
 * only the keys present change (a rename never empties the Group). `id` may only be sent unchanged.
 * Paths Aerie does not keep are accepted and not kept.
 * @returns the target state, or the refusal (`invalidSyntax`, `invalidPath`, `invalidValue`, `noTarget`, `mutability`, `invalidFilter`)
 */
export function applyGroupPatch(body: unknown, id: string, current: GroupState): GroupState | InputProblem | ScimFilterError {
  const ops = readPatchOp(body, MAX_GROUP_OPERATIONS);
  if (!Array.isArray(ops)) return ops;
  const state: GroupState = { ...current, members: [...current.members] };
  let members = new Set(current.members);
  let named = 0;
  const addMembers = (ids: string[]) => {
    named += ids.length;
    for (const m of ids) members.add(m);
  };
  const set = (attr: string, value: unknown, kind: 'add' | 'replace'): InputProblem | undefined => {
    if (attr === 'displayname') {
      const n = displayName(value);
      if (isProblem(n)) return n;
      state.displayName = n;
    } else if (attr === 'externalid') {
      const e = externalId(value);
      if (isProblem(e)) return e;
      state.externalId = e;
    } else if (attr === 'members') {
      const ids = value === null ? [] : memberValues(value);
      if (isProblem(ids)) return ids;
      if (kind === 'replace') {
        members = new Set();
        named = 0;
      }
      addMembers(ids);
    } else if (attr === 'id') {
      if (value !== id) return problem('mutability', 'id cannot change.');
    }
    return undefined; // schemas, meta, description, extensions: accepted, not kept
  };

  for (const { kind, path, value } of ops) {
    if (path === undefined) {
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        const failed = set(bare(key), v, kind as 'add' | 'replace');
        if (failed) return failed;
      }
      continue;
    }
    if (path.length > 1024) return problem('invalidPath', 'path is too long.');
    const filtered = /^(.*?)\[(.*)\]$/s.exec(path);
    const attr = bare(filtered ? filtered[1]! : path);
    if (filtered) {
      if (attr !== 'members') return problem('invalidPath', `A value filter applies to members, not ${filtered[1]}.`);
      if (kind !== 'remove') return problem('invalidPath', 'Add or replace members with path "members" and a list of { value }.');
      let filter: FilterNode;
      try {
        filter = parseFilter(filtered[2]!);
        for (const m of [...members]) if (matchesElement(filter, { value: m, type: 'User' }, 'members', MEMBER_SUBS)) members.delete(m);
      } catch (err) {
        if (err instanceof ScimFilterError) return err;
        throw err;
      }
      continue;
    }
    if (!/^[A-Za-z0-9:._\-$]+$/.test(path)) return problem('invalidPath', `Invalid path ${JSON.stringify(path)}.`);
    if (kind === 'remove') {
      if (attr === 'members') {
        if (value === undefined || value === null) members = new Set();
        else {
          const ids = memberValues(value);
          if (isProblem(ids)) return ids;
          for (const m of ids) members.delete(m);
        }
      } else if (attr === 'externalid') state.externalId = null;
      else if (attr === 'displayname') return problem('invalidValue', 'displayName is required: replace it instead.');
      else if (attr === 'id') return problem('mutability', 'id cannot be removed.');
      continue;
    }
    const failed = set(attr, value, kind);
    if (failed) return failed;
  }
  if (named > MAX_MEMBER_VALUES) return problem('invalidValue', `At most ${MAX_MEMBER_VALUES} members per request.`);
  state.members = [...members];
  return state;
}

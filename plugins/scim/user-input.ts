import { isDisplayName } from '../../core/index.ts';
import { USER_SCHEMA_URN } from './user-schema.ts';

/** The User attributes Aerie keeps, as a request sets them (`null` clears). */
export interface UserInput {
  userName?: string;
  externalId?: string | null;
  displayName?: string | null;
  givenName?: string | null;
  familyName?: string | null;
  active?: boolean;
}

/** A refusal in SCIM's terms: HTTP status, `scimType`, detail. */
export interface InputProblem {
  status: 400;
  scimType: 'invalidSyntax' | 'invalidValue' | 'invalidPath' | 'mutability' | 'noTarget';
  detail: string;
}

const problem = (scimType: InputProblem['scimType'], detail: string): InputProblem => ({ status: 400, scimType, detail });
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

/** Attribute paths Aerie keeps → the input member; other well-formed paths are accepted and not kept. */
const PATHS: Record<string, keyof UserInput> = {
  username: 'userName', externalid: 'externalId', displayname: 'displayName', 'name.givenname': 'givenName', 'name.familyname': 'familyName', active: 'active',
};

function text(name: string, value: unknown, max = 256): string | null | InputProblem {
  if (value === null) return null;
  if (typeof value !== 'string') return problem('invalidValue', `${name} is a string.`);
  if (value.length > max || !isDisplayName(value)) return problem('invalidValue', `${name} has at most ${max} characters and no control or invisible characters.`);
  return value.trim() === '' ? null : value;
}

/** SCIM booleans, including the strings `"True"`/`"False"` some identity providers send. */
function bool(value: unknown): boolean | InputProblem {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return problem('invalidValue', 'active is true or false.');
}

function setMember(input: UserInput, member: keyof UserInput, value: unknown): InputProblem | undefined {
  if (member === 'active') {
    const b = bool(value);
    if (typeof b !== 'boolean') return b;
    input.active = b;
    return undefined;
  }
  if (member === 'userName') {
    if (typeof value !== 'string' || value.length > 254 || !EMAIL.test(value)) return problem('invalidValue', 'userName is the member\'s email address.');
    input.userName = value;
    return undefined;
  }
  const t = text(member, value);
  if (typeof t === 'object' && t !== null) return t;
  input[member] = t;
  return undefined;
}

/** Strips the core User URN: `urn:…:core:2.0:User:name.givenName` → `name.givenName`. */
function bare(path: string): string {
  return path.toLowerCase().startsWith(`${USER_SCHEMA_URN.toLowerCase()}:`) ? path.slice(USER_SCHEMA_URN.length + 1) : path;
}

/**
 * Reads a full User resource (POST, PUT). Unknown attributes are accepted and not kept (identity
 * providers send many); a kept attribute of the wrong type is refused.
 */
export function readUser(body: unknown): UserInput | InputProblem {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return problem('invalidSyntax', 'The body is a SCIM User object.');
  const b = body as Record<string, unknown>;
  const input: UserInput = {};
  const entries: Array<[string, unknown]> = [['userName', b.userName], ['externalId', b.externalId], ['displayName', b.displayName], ['active', b.active]];
  if (b.name !== undefined) {
    if (b.name !== null && (typeof b.name !== 'object' || Array.isArray(b.name))) return problem('invalidValue', 'name is an object.');
    const n = (b.name ?? {}) as Record<string, unknown>;
    entries.push(['name.givenName', n.givenName ?? null], ['name.familyName', n.familyName ?? null]);
  }
  for (const [path, value] of entries) {
    if (value === undefined) continue;
    const failed = setMember(input, PATHS[path.toLowerCase()]!, value);
    if (failed) return failed;
  }
  return input;
}

/**
 * Applies PATCH operations (RFC 7644 §3.5.2) to the kept attributes: `add`, `replace`, `remove`
 * (any case), with a path (`active`, `displayName`, `name.givenName`, URN-qualified forms) or without
 * (an object whose keys are paths, dotted keys like `name.givenName` included). Paths Aerie does
 * not keep are accepted and ignored; `userName` may only be "changed" to itself (emails are the
 * account's identity).
 * @returns the members the operations set.
 */
export function applyPatch(body: unknown): UserInput | InputProblem {
  const found = body && typeof body === 'object' ? Object.entries(body as Record<string, unknown>).find(([k]) => k.toLowerCase() === 'operations')?.[1] : undefined;
  if (!Array.isArray(found)) return problem('invalidSyntax', 'The body is a PatchOp with Operations.');
  const ops: unknown[] = found;
  if (ops.length === 0 || ops.length > 100) return problem('invalidSyntax', 'Operations holds 1 to 100 operations.');
  const input: UserInput = {};
  for (const raw of ops) {
    if (!raw || typeof raw !== 'object') return problem('invalidSyntax', 'Each operation is an object.');
    const { op, path, value } = raw as { op?: unknown; path?: unknown; value?: unknown };
    const kind = typeof op === 'string' ? op.toLowerCase() : '';
    if (kind !== 'add' && kind !== 'replace' && kind !== 'remove') return problem('invalidSyntax', `Unknown op ${JSON.stringify(op)}.`);
    if (path !== undefined && typeof path !== 'string') return problem('invalidPath', 'path is a string.');
    const pairs: Array<[string, unknown]> = [];
    if (path === undefined) {
      if (kind === 'remove') return problem('noTarget', 'remove needs a path.');
      if (!value || typeof value !== 'object' || Array.isArray(value)) return problem('invalidValue', 'Without a path, value is an object of attributes.');
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        if (key.toLowerCase() === 'name' && v && typeof v === 'object') {
          for (const [sub, sv] of Object.entries(v as Record<string, unknown>)) pairs.push([`name.${sub}`, sv]);
        } else pairs.push([key, v]);
      }
    } else {
      if (path.length > 512 || !/^[A-Za-z0-9:._\-$]+(\[[^\]]*\](\.[A-Za-z][A-Za-z0-9_-]*)?)?$/.test(path)) return problem('invalidPath', `Invalid path ${JSON.stringify(path)}.`);
      if (kind === 'remove') pairs.push([path, null]);
      else if (bare(path).toLowerCase() === 'name' && value && typeof value === 'object') {
        for (const [sub, sv] of Object.entries(value as Record<string, unknown>)) pairs.push([`name.${sub}`, sv]);
      } else pairs.push([path, value]);
    }
    for (const [p, v] of pairs) {
      const member = PATHS[bare(p).toLowerCase()];
      if (!member) continue; // an attribute Aerie does not keep
      if (member === 'active' && v === null) return problem('invalidValue', 'active cannot be removed.');
      const failed = setMember(input, member, v);
      if (failed) return failed;
    }
  }
  return input;
}

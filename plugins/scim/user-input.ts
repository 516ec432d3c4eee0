import { isDisplayName } from '../../core/index.ts';

/** The User attributes Aerie keeps, as a request sets them (`null` clears). */
export interface UserInput {
  userName?: string;
  externalId?: string | null;
  displayName?: string | null;
  givenName?: string | null;
  familyName?: string | null;
  active?: boolean;
  /**
   * The work email the request names (the `emails` element of type "work", or without a type the
   * primary one). Aerie
   * keeps one email, the account's, which is the userName: the writer refuses any other.
   */
  email?: string;
}

/** A refusal in SCIM's terms: HTTP status, `scimType`, detail. */
export interface InputProblem {
  status: 400;
  scimType: 'invalidSyntax' | 'invalidValue' | 'invalidPath' | 'mutability' | 'noTarget';
  detail: string;
}

export const problem = (scimType: InputProblem['scimType'], detail: string): InputProblem => ({ status: 400, scimType, detail });
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

/** Attribute paths Aerie keeps → the input member; other well-formed paths are accepted and not kept. */
export const PATHS: Record<string, keyof UserInput> = {
  username: 'userName', externalid: 'externalId', displayname: 'displayName', 'name.givenname': 'givenName', 'name.familyname': 'familyName', active: 'active',
};

function text(name: string, value: unknown, max = 256): string | null | InputProblem {
  if (value === null) return null;
  if (typeof value !== 'string') return problem('invalidValue', `${name} is a string.`);
  if (value.length > max || !isDisplayName(value)) return problem('invalidValue', `${name} has at most ${max} characters and no control or invisible characters.`);
  return value.trim() === '' ? null : value;
}

/** SCIM booleans, including the strings `"True"`/`"False"` some identity providers send. */
export function bool(value: unknown): boolean | InputProblem {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return problem('invalidValue', 'active is true or false.');
}

/** Sets one kept input member from a request value, or answers why the value is refused. */
export function setMember(input: UserInput, member: keyof UserInput, value: unknown): InputProblem | undefined {
  if (member === 'active') {
    const b = bool(value);
    if (typeof b !== 'boolean') return b;
    input.active = b;
    return undefined;
  }
  if (member === 'email') {
    if (typeof value !== 'string' || value.length > 254 || !EMAIL.test(value)) return problem('invalidValue', 'The work email is an email address.');
    input.email = value;
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
  if (b.emails !== undefined && b.emails !== null) {
    const email = workEmail(b.emails);
    if (typeof email === 'object') return email;
    if (email !== undefined) input.email = email;
  }
  return input;
}

/**
 * The work email in an `emails` value (an array of elements, or one element): the value of the
 * element of type "work" (or, without a type, the primary one); other elements are not kept. Two different
 * work emails are refused (Aerie keeps one).
 */
export function workEmail(emails: unknown): string | undefined | InputProblem {
  const list = Array.isArray(emails) ? emails : [emails];
  const found = new Set<string>();
  for (const e of list) {
    if (!e || typeof e !== 'object' || Array.isArray(e)) return problem('invalidValue', 'emails is an array of { value, type, primary }.');
    const { value, type, primary } = e as Record<string, unknown>;
    const work = typeof type === 'string' ? type.toLowerCase() === 'work' : type === undefined && bool(primary ?? false) === true;
    if (!work) continue;
    const one: UserInput = {};
    const failed = setMember(one, 'email', value);
    if (failed) return failed;
    found.add(one.email!.toLowerCase());
  }
  if (found.size > 1) return problem('invalidValue', 'A User has one work email, its userName.');
  return [...found][0];
}

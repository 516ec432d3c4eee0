import { isDisplayName } from '../../core/index.ts';

/** The `name` sub-attributes of RFC 7643 §4.1.1, all kept (`formatted` is `name.formatted`). */
export const NAME_PARTS = ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'] as const;
export type NamePart = (typeof NAME_PARTS)[number];

/** The User attributes Aerie keeps, as a request sets them (`null` clears). */
export interface UserInput extends Partial<Record<NamePart, string | null>> {
  /** The SCIM identifier, kept as sent (any string; an email address or not). */
  userName?: string;
  externalId?: string | null;
  displayName?: string | null;
  active?: boolean;
  /**
   * The email the request names: the `emails` element of type "work", else the primary one. It is
   * the account's address: a new User's account is found or made by it, and it never changes.
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

/** Whether `value` is shaped like an email address (a `userName` may be one, or not). */
export const isEmailAddress = (value: string): boolean => value.length <= 254 && EMAIL.test(value);

/** Attribute paths Aerie keeps (lower-cased) → the input member; other well-formed paths are accepted and not kept. */
export const PATHS: Record<string, keyof UserInput> = {
  username: 'userName', externalid: 'externalId', displayname: 'displayName', active: 'active',
  ...Object.fromEntries(NAME_PARTS.map((part) => [`name.${part.toLowerCase()}`, part])),
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
    if (typeof value !== 'string' || !isEmailAddress(value)) return problem('invalidValue', 'The work email is an email address.');
    input.email = value;
    return undefined;
  }
  if (member === 'userName') {
    const t = text('userName', value);
    if (typeof t !== 'string') return t ?? problem('invalidValue', 'userName is required: a non-empty string.');
    input.userName = t;
    return undefined;
  }
  const t = text(member, value);
  if (typeof t === 'object' && t !== null) return t;
  input[member] = t;
  return undefined;
}

/**
 * Reads a full User resource (POST, PUT). Unknown attributes are accepted and not kept (identity
 * providers send many), `name` sub-attributes are read in any case; a kept attribute of the wrong
 * type is refused. Whether `userName` is present is the writer's rule (it is required).
 */
export function readUser(body: unknown): UserInput | InputProblem {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return problem('invalidSyntax', 'The body is a SCIM User object.');
  const b = body as Record<string, unknown>;
  const input: UserInput = {};
  const entries: Array<[string, unknown]> = [['userName', b.userName], ['externalId', b.externalId], ['displayName', b.displayName], ['active', b.active]];
  if (b.name !== undefined) {
    if (b.name !== null && (typeof b.name !== 'object' || Array.isArray(b.name))) return problem('invalidValue', 'name is an object.');
    const given = lowerKeys(b.name ?? {});
    for (const part of NAME_PARTS) entries.push([`name.${part}`, given[part.toLowerCase()] ?? null]);
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

/** An object's members by lower-cased key (SCIM attribute names are case-insensitive: Entra ID sends `Primary`). */
export function lowerKeys(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * The account's address in an `emails` value (an array of elements, or one element): the value of
 * the element of type "work", else of the primary one (of any type or none); other elements are not
 * kept. Two different work emails (or, without one, two primary ones) are refused.
 */
export function workEmail(emails: unknown): string | undefined | InputProblem {
  const list = Array.isArray(emails) ? emails : [emails];
  const work = new Set<string>();
  const primary = new Set<string>();
  for (const e of list) {
    if (!e || typeof e !== 'object' || Array.isArray(e)) return problem('invalidValue', 'emails is an array of { value, type, primary }.');
    const { value, type, primary: isPrimary } = lowerKeys(e);
    const isWork = typeof type === 'string' && type.toLowerCase() === 'work';
    if (!isWork && bool(isPrimary ?? false) !== true) continue;
    const one: UserInput = {};
    const failed = setMember(one, 'email', value);
    if (failed) return failed;
    (isWork ? work : primary).add(one.email!);
  }
  const found = work.size > 0 ? work : primary;
  if (new Set([...found].map((e) => e.toLowerCase())).size > 1) return problem('invalidValue', 'A User has one work email, the address of its account.');
  return [...found][0];
}

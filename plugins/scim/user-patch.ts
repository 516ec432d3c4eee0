import { ScimFilterError } from './filter/ast.ts';
import { matchesElement, type ElementSubs } from './filter/match-element.ts';
import { parseFilter } from './filter/parse-filter.ts';
import { patchTargets, readPatchOp, splitPath } from './patch-op.ts';
import { bool, NAME_PARTS, PATHS, problem, setMember, workEmail, type InputProblem, type UserInput } from './user-input.ts';
import { USER_SCHEMA_URN } from './user-schema.ts';

export const ENTERPRISE_USER_URN = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** RFC 7643 §4.1 attributes Aerie does not keep: a PATCH of them is accepted and changes nothing. */
const NOT_KEPT = new Set(['nickname', 'profileurl', 'title', 'usertype', 'preferredlanguage', 'locale', 'timezone', 'password']);
/** The multi-valued ones among them (they take value filters: `phoneNumbers[type eq "work"].value`). */
const NOT_KEPT_MULTI = new Set(['phonenumbers', 'ims', 'photos', 'addresses', 'entitlements', 'roles', 'x509certificates']);
/** RFC 7643 §4.3, none of them kept. */
const ENTERPRISE = new Set(['employeenumber', 'costcenter', 'organization', 'division', 'department', 'manager']);
const EMAIL_SUBS: ElementSubs = {
  value: { type: 'string', caseExact: false }, type: { type: 'string', caseExact: false }, primary: { type: 'boolean' }, display: { type: 'string', caseExact: false },
};

type Kind = 'add' | 'replace' | 'remove';
/** What the operations are applied to: the User's id and its one email (the account's address). */
interface Current { id: string; email: string }

/** A sub-attribute of the work email element set by add/replace. */
function emailSub(input: UserInput, sub: string, value: unknown): InputProblem | undefined {
  switch (sub) {
    case 'value': return setMember(input, 'email', value);
    case 'type': return typeof value === 'string' && value.toLowerCase() === 'work' ? undefined : problem('mutability', "The work email is the account's address: its type stays \"work\".");
    case 'primary': return bool(value) === true ? undefined : problem('mutability', "The work email is the account's address: it stays primary.");
    case 'display': return undefined;
    default: return problem('invalidPath', `emails has no sub-attribute ${sub}.`);
  }
}

/**
 * `emails`, `emails.value`, `emails[filter]`, `emails[filter].value`: the filter is evaluated on
 * the User's one element `{ value: <account email>, type: "work", primary: true }`. When it matches,
 * add/replace set the work email (the writer refuses one other than the account's) and remove is
 * refused; when it matches nothing, add/replace would create another email (RFC 7644 §3.5.2.3, as
 * Entra ID expects), which Aerie does not keep, and remove has nothing to remove.
 */
function emailsPath(input: UserInput, kind: Kind, filter: string | undefined, sub: string | undefined, value: unknown, current: Current): InputProblem | undefined {
  if (filter !== undefined) {
    try {
      if (!matchesElement(parseFilter(filter), { value: current.email, type: 'work', primary: true }, 'emails', EMAIL_SUBS)) return undefined;
    } catch (err) {
      if (err instanceof ScimFilterError) return problem('invalidPath', err.detail);
      throw err;
    }
  }
  if (kind === 'remove') return sub === 'display' ? undefined : problem('mutability', "The work email is the account's address and cannot be removed.");
  if (sub !== undefined) return emailSub(input, sub, value);
  if (filter === undefined) {
    const email = workEmail(value);
    if (typeof email === 'object') return email;
    if (email !== undefined) input.email = email;
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return problem('invalidValue', 'emails[…] takes an object { value, type, primary }.');
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const failed = emailSub(input, key.toLowerCase(), v); // keys in any case (`Primary`)
    if (failed) return failed;
  }
  return undefined;
}

/** One operation on one attribute path (RFC 7644 §3.5.2): sets `input` or answers the refusal. */
function applyPath(input: UserInput, kind: Kind, rawPath: string, value: unknown, current: Current): InputProblem | undefined {
  const lower = rawPath.toLowerCase();
  if (lower.startsWith(ENTERPRISE_USER_URN.toLowerCase())) {
    const m = /^(?::([A-Za-z]+)(?:\.(value|displayName|\$ref))?)?$/i.exec(rawPath.slice(ENTERPRISE_USER_URN.length));
    if (!m || (m[1] && !ENTERPRISE.has(m[1].toLowerCase())) || (m[2] && m[1]!.toLowerCase() !== 'manager')) {
      return problem('invalidPath', `No attribute ${rawPath} in the enterprise User extension.`);
    }
    return undefined; // not kept
  }
  const parts = splitPath(rawPath, USER_SCHEMA_URN, 512);
  if ('scimType' in parts) return parts;
  const { name, attr, filter, sub } = parts;
  if (attr === 'emails') return emailsPath(input, kind, filter, sub, value, current);
  if (NOT_KEPT_MULTI.has(attr)) {
    try {
      if (filter !== undefined) parseFilter(filter);
    } catch (err) {
      if (err instanceof ScimFilterError) return problem('invalidPath', err.detail);
      throw err;
    }
    return undefined;
  }
  if (filter !== undefined) return problem('invalidPath', `${name} is not multi-valued; it takes no value filter.`);
  if (attr === 'schemas' && !sub) return undefined;
  if (attr === 'id' && !sub) return kind !== 'remove' && value === current.id ? undefined : problem('mutability', 'id cannot change.');
  if (attr === 'meta' || attr === 'groups') return problem('mutability', `${name} is read-only.`);
  if (NOT_KEPT.has(attr) && !sub) return undefined;
  if (attr === 'name' && !sub) {
    if (kind === 'remove' || value === null) {
      for (const part of NAME_PARTS) input[part] = null;
      return undefined;
    }
    if (typeof value !== 'object' || Array.isArray(value)) return problem('invalidValue', 'name is an object.');
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const failed = applyPath(input, kind, `name.${key}`, v, current);
      if (failed) return failed;
    }
    return undefined;
  }
  const member = PATHS[sub ? `${attr}.${sub}` : attr];
  if (!member) return problem('invalidPath', `No attribute ${rawPath} in the User schema.`);
  const v = kind === 'remove' ? null : value;
  if (member === 'active' && v === null) return problem('invalidValue', 'active cannot be removed.');
  return setMember(input, member, v);
}

/**
 * Applies PATCH operations (RFC 7644 §3.5.2) to a User: `add`, `replace`, `remove` in any case,
 * with a path or without one (an object whose keys are paths: `name.givenName`, URN-qualified and
 * enterprise-extension keys included).
 * - kept: `userName` (unique in the organization, checked by the writer), `externalId`,
 *   `displayName`, `name` and its six sub-attributes, `active` (also `"True"`/`"False"`), and the
 *   work email — `emails[type eq "work"].value` and the other `emails` forms — which is the
 *   account's address (only "changed" to itself, checked by the writer);
 * - accepted and not kept: the other attributes of the core User schema and the enterprise
 *   extension (`title`, `phoneNumbers[type eq "work"].value`, `…:enterprise:2.0:User:department`),
 *   as identity providers send many;
 * - refused: any other path (400 `invalidPath`), `id` (unless unchanged), `meta`, `groups`
 *   (400 `mutability`), removing the work email (400 `mutability`).
 * @param current - the User's id and email, which the `emails[…]` filters are evaluated on
 * @returns the members the operations set, or the refusal
 * @see docs/api/scim.md "Provisioning"
 */
export function applyPatch(body: unknown, current: Current): UserInput | InputProblem {
  const ops = readPatchOp(body, 100);
  if (!Array.isArray(ops)) return ops;
  const input: UserInput = {};
  for (const { kind, path, value } of patchTargets(ops)) {
    const failed = applyPath(input, kind, path, value, current);
    if (failed) return failed;
  }
  return input;
}

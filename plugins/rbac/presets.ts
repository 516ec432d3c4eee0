/**
 * The preset roles every organization has, and their fixed permission templates.
 *
 * Guest roles compile to constrained scopes: a `{variable}` value is filled from the assignment's
 * `Variables`, and an unfilled one becomes `*`, which matches no id (the assignment grants nothing).
 *
 * Preset ids are derived from the organization id and the role key (UUID v5), so a preset's id is
 * known without a query: a route's `seal.when` can tell a director role id synchronously, and lazy
 * creation by several processes converges on the same rows.
 *
 * @see docs/api/roles.md
 */
import { createHash } from 'node:crypto';

/** A preset role: its key, display fields and permission templates. */
export interface PresetRole {
  readonly roleKey: string;
  readonly name: string;
  readonly description: string;
  readonly templates: readonly string[];
}

/** The directors' preset grants. @see docs/api/roles.md */
export const DIRECTOR_GRANTS = Object.freeze(['view.business', 'org.meeting.read', 'org.meeting.list']);

/** Role keys of board directors; inviting with one needs a passkey seal. @see docs/api/members.md */
export const DIRECTOR_ROLE_KEYS = Object.freeze(['ORG_DIRECTOR', 'REPRESENTATIVE_DIRECTOR']);

/** Organization types that may have directors. @see docs/api/members.md ("Corporation and SPV organizations only") */
export const DIRECTOR_ORG_TYPES: ReadonlySet<string> = new Set(['Corporation', 'Project']);

/** Role keys of guests (membership type `Guest`). */
export const GUEST_ROLE_KEYS = Object.freeze(['ORG_GUEST', 'PROJECT_GUEST', 'MEETING_GUEST']);

/** Role key of freelancers (membership type `Freelancer`). */
export const FREELANCER_ROLE_KEY = 'ORG_FREELANCER';

/**
 * The presets, as created with every organization. Their permissions are fixed (the compile table
 * is part of the interface); name, description, approval flag and active state can be edited.
 * @see docs/api/roles.md (guest compile table, directors' preset)
 */
export const PRESET_ROLES: readonly PresetRole[] = Object.freeze([
  { roleKey: 'ORG_DIRECTOR', name: 'Director', description: 'Board director: business view and board meetings.', templates: DIRECTOR_GRANTS },
  {
    roleKey: 'REPRESENTATIVE_DIRECTOR', name: 'Representative director',
    description: 'Representative director: business view and board meetings; needs a company email.', templates: DIRECTOR_GRANTS,
  },
  {
    roleKey: 'ORG_GUEST', name: 'Guest', description: 'Read-only guest across the organization (unscoped).',
    templates: ['org.project.read', 'org.project.list', 'org.meeting.read', 'org.meeting.list'],
  },
  {
    roleKey: 'ORG_FREELANCER', name: 'Freelancer', description: 'Outside contributor who reads every project of the organization.',
    templates: ['org.project.read', 'org.project.list'],
  },
  {
    roleKey: 'PROJECT_GUEST', name: 'Project guest', description: 'Guest of one project (variable "project").',
    templates: ['org.project.read:project={project}', 'org.project.list:project={project}'],
  },
  {
    roleKey: 'MEETING_GUEST', name: 'Meeting guest', description: 'Guest of one meeting (variable "meeting").',
    templates: ['org.meeting.read:meeting={meeting}', 'org.meeting.list:meeting={meeting}'],
  },
].map((p) => Object.freeze({ ...p, templates: Object.freeze([...p.templates]) })));

const PRESET_KEYS = new Set(PRESET_ROLES.map((p) => p.roleKey));

/** Whether `roleKey` names a preset (such keys cannot be used for custom roles). */
export function isPresetKey(roleKey: string): boolean {
  return PRESET_KEYS.has(roleKey);
}

/** Whether `roleKey` is a director role (`ORG_DIRECTOR`, `REPRESENTATIVE_DIRECTOR`). */
export function isDirectorRoleKey(roleKey: string): boolean {
  return DIRECTOR_ROLE_KEYS.includes(roleKey);
}

// The RFC 4122 v5 namespace of Aerie's preset ids: 16 fixed bytes, chosen once; never change them
// (existing organizations' preset ids would no longer match).
const NAMESPACE = Buffer.from('4f3c3f5e9a1b5c2d8e7f60718293a4b5', 'hex');

/**
 * A UUID v5 (SHA-1, RFC 4122 §4.3) of `name` in Aerie's preset namespace.
 * @example uuidV5('org-id|ORG_DIRECTOR') // '…-5…-…'
 */
export function uuidV5(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The id of organization `orgId`'s preset role `roleKey`. */
export function presetRoleId(orgId: string, roleKey: string): string {
  return uuidV5(`${orgId}|role|${roleKey}`);
}

/** The id of the `index`-th template of a preset role. */
export function presetTemplateId(orgId: string, roleKey: string, index: number): string {
  return uuidV5(`${orgId}|template|${roleKey}|${index}`);
}

/** Whether `roleId` is one of organization `orgId`'s director presets (no query needed). */
export function isDirectorRoleId(orgId: string, roleId: string): boolean {
  return DIRECTOR_ROLE_KEYS.some((key) => presetRoleId(orgId, key) === roleId);
}

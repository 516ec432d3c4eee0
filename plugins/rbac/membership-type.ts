/**
 * The membership type: what kind of member someone is, derived from the roles they hold.
 *
 * | holds | type |
 * |---|---|
 * | `ORG_DIRECTOR` or `REPRESENTATIVE_DIRECTOR` (with anything else) | `Director` |
 * | at least one role that is not a guest, freelancer or director preset | `Member` |
 * | `ORG_FREELANCER` (and otherwise only guest roles) | `Freelancer` |
 * | only guest roles (`ORG_GUEST`, `PROJECT_GUEST`, `MEETING_GUEST`) | `Guest` |
 * | no role | `Member` |
 *
 * Recomputed on every assignment and unassignment (and so on invitation acceptance).
 * @see docs/api/roles.md ("the membership type recomputed"), "Members" ("the membership type is derived")
 */
import { FREELANCER_ROLE_KEY, GUEST_ROLE_KEYS, isDirectorRoleKey } from './presets.ts';

/** Membership types. @see docs/api/members.md "Membership type" */
export type MembershipType = 'Director' | 'Member' | 'Freelancer' | 'Guest';

/**
 * Derives the membership type from the role keys a member holds (table above).
 * @example membershipTypeOf(['PROJECT_GUEST', 'ORG_FREELANCER']) // 'Freelancer'
 */
export function membershipTypeOf(roleKeys: readonly string[]): MembershipType {
  if (roleKeys.some(isDirectorRoleKey)) return 'Director';
  if (roleKeys.length === 0) return 'Member';
  if (roleKeys.some((k) => k !== FREELANCER_ROLE_KEY && !GUEST_ROLE_KEYS.includes(k))) return 'Member';
  return roleKeys.includes(FREELANCER_ROLE_KEY) ? 'Freelancer' : 'Guest';
}

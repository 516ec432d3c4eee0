/**
 * The members plugin's service interfaces: what other plugins may call through its refs (`api.ts`).
 * The classes that implement them stay inside the plugin.
 */
import type { OrgContext } from '../../core/index.ts';
import type { MembershipDto } from '../orgs/api.ts';
import type { InvitationDto, InvitationRow } from './invitation-record.ts';
import type { InviteInput, Inviter } from './invitations.service.ts';
import type { Actor, MemberDto, MemberPatch } from './members.service.ts';
import type { Knex } from 'knex';

/**
 * `members.invitations` (sending side): invite, re-send, cancel and list. Tokens are 256 random
 * bits, mailed once, kept as SHA-256; see `invitation-record.ts` for the states.
 * @see docs/api/members.md
 */
export interface InvitationsService {
  /**
   * Invites `Email` with the proposed role `RoleId` and mails the token. Director roles are checked
   * for organization type and (representative directors) the company-email gate; their seal was
   * verified by the route before this runs.
   * @throws 404 `ROLE_NOT_FOUND` / `MEMBER_NOT_FOUND` (reporting manager), 409 `ROLE_INACTIVE`,
   *   403 `PERMISSION_DENIED` / `SOD_CONFLICT`, 400 `DIRECTOR_ORG_TYPE` / `COMPANY_EMAIL_REQUIRED` /
   *   `VALIDATION_FAILED`, 409 `ALREADY_MEMBER` / `INVITATION_PENDING`
   */
  invite(org: OrgContext['organization'], inviter: Inviter, input: InviteInput): Promise<InvitationDto>;
  /**
   * Re-sends a `pending` or `expired` invitation with a new token and expiry (the old token stops
   * working). At most one send per {@link RESEND_INTERVAL_SECONDS} per invitation.
   * The caller must be able to invite to the invitation's role, as inviting requires.
   * @throws 404 `INVITATION_NOT_FOUND`, 409 `INVITATION_NOT_PENDING`, 403 `PERMISSION_DENIED`,
   *   429 `RATE_LIMITED` with `retryAfterSeconds` (nothing changes, nothing is mailed)
   */
  resend(org: OrgContext['organization'], inviter: Inviter, ref: { InvitationId?: string; Email?: string }): Promise<InvitationDto>;
  /**
   * Cancels a `pending` or `expired` invitation; the caller must be able to invite to its role, as
   * inviting requires (a plain member cannot cancel the Owner's invitation to a role they could not grant).
   * @throws 404 `INVITATION_NOT_FOUND`, 403 `PERMISSION_DENIED` (nothing changes), 409 `INVITATION_NOT_PENDING`
   */
  cancel(orgId: string, inviter: Inviter, invitationId: string): Promise<void>;
  /** Invitations of `orgId`, newest first; `status` filters by effective state. */
  list(orgId: string, status?: string): Promise<InvitationDto[]>;
  /** Writes `expired` on a pending row past its expiry, with its audit event (inside `trx`). */
  markExpired(trx: Knex.Transaction, row: InvitationRow): Promise<void>;
  /**
   * SCIM provisioning of an address an Aerie account already has: an invitation to join as a plain
   * member (no role), in the caller's transaction; an open invitation to the address is kept instead.
   * @returns the mail to send once the transaction commits
   */
  inviteProvisioned(trx: Knex.Transaction, org: { id: string; name: string }, email: string, scimTokenId: string): Promise<() => Promise<void>>;
  /** Cancels the open invitations to `email` in `orgId`, in `trx`. @returns how many. */
  cancelOpen(trx: Knex.Transaction, orgId: string, email: string): Promise<number>;
}

/**
 * `members.members`: list, edit, suspend, revoke and delete members. Memberships change through
 * `orgs.memberships`, role assignments through `rbac.assignments`.
 *
 * - suspend: status `suspended`; role assignments are kept (they apply again on re-activation,
 *   `PATCH {Status:"active"}`); the member is refused on their next request.
 * - revoke: status `revoked`; role assignments are dropped; refused on the next request; final
 *   (a new invitation re-activates the same membership id, with the invitation's role only).
 * - delete: the membership, its assignments and profile are removed.
 * The Owner is protected from all of these; only an Owner or Admin may act on an Admin or change
 * a member's `Role`. Sessions are not touched: the member keeps their account and other organizations.
 * @see docs/api/members.md
 */
export interface MembersService {
  /** Members of `orgId` (every status unless filtered), oldest first. */
  list(orgId: string, status?: MembershipDto['status']): Promise<MemberDto[]>;
  /** One member. @throws 404 `MEMBER_NOT_FOUND` */
  get(orgId: string, id: string): Promise<MemberDto>;
  /**
   * Edits a member. @throws 404 `MEMBER_NOT_FOUND`, 409 `OWNER_PROTECTED` / `MEMBER_REVOKED`,
   *   403 `PERMISSION_DENIED` (role change or Admin target by a plain member), 400 `VALIDATION_FAILED`
   */
  update(orgId: string, id: string, patch: MemberPatch, actor: Actor): Promise<MemberDto>;
  /** Suspends an active member. @throws 404, 409 `OWNER_PROTECTED` / `MEMBER_NOT_ACTIVE`, 403 */
  suspend(orgId: string, id: string, actor: Actor): Promise<MemberDto>;
  /** Revokes an active or suspended member and drops their role assignments. @throws 404, 409, 403 */
  revoke(orgId: string, id: string, actor: Actor): Promise<MemberDto>;
  /** Deletes a membership with its assignments and profile. @throws 404, 409 `OWNER_PROTECTED`, 403 */
  remove(orgId: string, id: string, actor: Actor): Promise<void>;
}

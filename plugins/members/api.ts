/**
 * The members plugin's public API: service refs, types and extension points other plugins may import.
 */
import type { Knex } from 'knex';
import { createExtensionPoint, createServiceRef } from '../../core/index.ts';
import type { InvitationsService, MembersService } from './service-interfaces.ts';

export type { InvitationsService, MembersService } from './service-interfaces.ts';

export type { InvitationDto, InvitationStatus } from './invitations.service.ts';
export type { MemberDto } from './members.service.ts';

/** A director who accepted an invitation: what the board needs to seat them. @see docs/api/members.md */
export interface DirectorAccepted {
  orgId: string;
  invitationId: string;
  /** The new member's membership id (the spec's connectedIdId). */
  connectedIdId: string;
  accountId: string;
  roleKey: 'ORG_DIRECTOR' | 'REPRESENTATIVE_DIRECTOR';
  boardChairman: boolean;
  boardSharePercent: number | null;
  /** Account id of the inviter, whose passkey sealed the invitation. */
  invitedBy: string | null;
}

/**
 * A member's reporting manager was set, changed or cleared: on accepting an invitation that named
 * one, or on `PATCH /members/{id}` with `ReportingManagerId`. Ids are membership ids.
 * @see docs/api/members.md
 */
export interface ManagerChanged {
  orgId: string;
  connectedIdId: string;
  managerId: string | null;
  previousManagerId: string | null;
}

/** A `managerChanged` contribution. */
export type ManagerChangedHook = (event: ManagerChanged, trx: Knex.Transaction) => Promise<void>;

export const membersRefs = {
  invitations: createServiceRef<InvitationsService>('members.invitations'),
  members: createServiceRef<MembersService>('members.members'),
};

export const membersExtensions = {
  /**
   * The organization's verified email domains (e.g. from a settings plugin's domain verification).
   * `REPRESENTATIVE_DIRECTOR` invitations need an address on one of them or a subdomain; with no
   * contributor, no address qualifies.
   */
  companyDomains: createExtensionPoint<(orgId: string) => Promise<readonly string[]>>('members.companyDomains'),
  /**
   * Runs inside the acceptance transaction of a director invitation (the board seats the director
   * here; a throw aborts the acceptance). The bus event `org.member.director_accepted` follows the commit.
   */
  directorAccepted: createExtensionPoint<(event: DirectorAccepted, trx: Knex.Transaction) => Promise<void>>('members.directorAccepted'),
  /**
   * Runs inside the transaction that sets a member's reporting manager (the teams plugin keeps the
   * matching `reporting` edge here; a throw, such as a reporting cycle, aborts the whole change).
   */
  managerChanged: createExtensionPoint<ManagerChangedHook>('members.managerChanged'),
};

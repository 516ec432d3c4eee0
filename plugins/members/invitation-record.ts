/**
 * Invitation rows, their client shape, and the state rules shared by the sending and answering sides.
 *
 * States (docs/api/members.md "Invitation states"):
 * - `pending`: sent, answerable with its current token until `expiresAt`.
 * - `expired`: `pending` past `expiresAt`. Reported as `expired` at once; written to the row the
 *   first time the invitation is touched after that (answered, re-sent, listed or cancelled).
 * - `accepted`, `declined`, `cancelled`: final.
 * Re-sending a `pending` or `expired` invitation issues a new token (the old one stops working) and
 * a new expiry, and makes it `pending` again.
 *
 * @see docs/api/members.md (Invitation: "not shown"), "Members"
 */

/** How long an invitation token is valid (seconds): 7 days. */
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** Random bytes of an invitation token: 256 bits (base64url, 43 characters). */
export const INVITATION_TOKEN_BYTES = 32;

/** A re-send waits this many seconds after the invitation's previous send (429 `RATE_LIMITED` sooner). */
export const RESEND_INTERVAL_SECONDS = 60;

/** Invitation states. */
export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'cancelled' | 'expired';

/** A row of `members.invitations`. */
export interface InvitationRow {
  id: string;
  orgId: string;
  email: string;
  /** Null on an invitation SCIM provisioning sent: it proposes a plain membership, no role. */
  roleId: string | null;
  roleKey: string | null;
  reportingManagerId: string | null;
  boardChairman: boolean | null;
  boardSharePercent: string | number | null;
  status: InvitationStatus;
  tokenHash: string;
  expiresAt: Date;
  invitedBy: string | null;
  sendCount: number;
  lastSentAt: Date;
  respondedAt: Date | null;
  membershipId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An invitation as clients see it (never its token). @see docs/api/members.md "The invitation object" */
export interface InvitationDto {
  InvitationId: string;
  Email: string;
  /** Null on an invitation SCIM provisioning sent (a plain membership, no role). */
  RoleId: string | null;
  RoleKey: string | null;
  Status: InvitationStatus;
  ExpiresAt: string;
  ReportingManagerId: string | null;
  BoardChairman: boolean | null;
  BoardSharePercent: number | null;
  InvitedBy: string | null;
  SendCount: number;
  LastSentAt: string;
  RespondedAt: string | null;
  ConnectedIdId: string | null;
  CreatedAt: string;
}

/** The state as of `now`: a `pending` row past its expiry is `expired`. */
export function effectiveStatus(row: Pick<InvitationRow, 'status' | 'expiresAt'>, now: Date): InvitationStatus {
  return row.status === 'pending' && new Date(row.expiresAt).getTime() <= now.getTime() ? 'expired' : row.status;
}

/** The client shape of a row as of `now`. */
export function invitationDto(row: InvitationRow, now: Date): InvitationDto {
  return {
    InvitationId: row.id, Email: row.email, RoleId: row.roleId, RoleKey: row.roleKey, Status: effectiveStatus(row, now),
    ExpiresAt: iso(row.expiresAt), ReportingManagerId: row.reportingManagerId, BoardChairman: row.boardChairman,
    BoardSharePercent: row.boardSharePercent === null ? null : Number(row.boardSharePercent), InvitedBy: row.invitedBy,
    SendCount: row.sendCount, LastSentAt: iso(row.lastSentAt), RespondedAt: row.respondedAt ? iso(row.respondedAt) : null,
    ConnectedIdId: row.membershipId, CreatedAt: iso(row.createdAt),
  };
}

function iso(d: Date): string {
  return new Date(d).toISOString();
}

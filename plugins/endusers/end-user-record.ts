import type { EndUserDto, EndUserStatus } from './service-interfaces.ts';

/** The tables of this plugin. */
export const END_USERS = 'endusers.end_users';
export const ACCESS = 'endusers.access';
export const INVITES = 'endusers.invites';

/** Prefix of an end user's identity badge. @see docs/api/endusers.md */
export const BADGE_PREFIX = 'eu_';

/**
 * The columns any read selects. The dormant password-hash columns are not among them: only the
 * import's insert writes them and nothing reads them (docs/api/endusers.md "Dormant password hashes").
 */
export const END_USER_COLUMNS = ['id', 'orgId', 'badge', 'email', 'displayName', 'status', 'emailVerifiedAt', 'source', 'createdAt', 'updatedAt'] as const;

/** A row of `endusers.end_users` as read (see {@link END_USER_COLUMNS}). */
export interface EndUserRow {
  id: string;
  orgId: string;
  badge: string;
  email: string;
  displayName: string | null;
  status: EndUserStatus;
  emailVerifiedAt: Date | null;
  source: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Status changes by route (docs/api/endusers.md "States"): suspend from `Pending` or `Active`;
 * activate from `Suspended` only, back to `Active` when the email was verified, else `Pending`.
 * @returns the next status, or `undefined` when the transition is refused (409).
 */
export function nextStatus(row: Pick<EndUserRow, 'status' | 'emailVerifiedAt'>, action: 'suspend' | 'activate'): EndUserStatus | undefined {
  if (action === 'suspend') return row.status === 'Suspended' ? undefined : 'Suspended';
  if (row.status !== 'Suspended') return undefined;
  return row.emailVerifiedAt ? 'Active' : 'Pending';
}

/** The client shape of a row with its app groups. */
export function endUserDto(row: EndUserRow, appGroupIds: string[]): EndUserDto {
  return {
    id: row.id, badge: row.badge, email: row.email, displayName: row.displayName, status: row.status,
    emailVerifiedAt: row.emailVerifiedAt ? new Date(row.emailVerifiedAt).toISOString() : null, source: row.source, appGroupIds,
    createdAt: new Date(row.createdAt).toISOString(), updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

import type { Knex } from 'knex';
import { NOTIFICATIONS_TABLE, type NotificationRow } from './tables.ts';

/** The notification every recipient gets. */
export type FanOutContent = Pick<NotificationRow, 'orgId' | 'category' | 'title' | 'body' | 'link' | 'announcementId' | 'createdAt'>;

/**
 * Inserts one notification per account that `recipients` selects (a query with an `account_id`
 * column) in ONE `insert … select` statement, whatever the number of recipients.
 * @returns how many notifications were inserted.
 */
export async function fanOut(db: Knex | Knex.Transaction, recipients: Knex.QueryBuilder, content: FanOutContent): Promise<number> {
  const { orgId, category, title, body, link, announcementId, createdAt } = content;
  const result = await db.raw(
    `insert into ${NOTIFICATIONS_TABLE} (account_id, org_id, category, title, body, link, announcement_id, created_at)
     select r.account_id, ?::uuid, ?, ?, ?, ?, ?::uuid, ? from (?) as r`,
    [orgId, category, title, body, link, announcementId, createdAt, recipients],
  );
  return result.rowCount ?? 0;
}

/** `accountIds` as a recipients query for {@link fanOut}. */
export function accountsQuery(db: Knex | Knex.Transaction, accountIds: readonly string[]): Knex.QueryBuilder {
  return db.select(db.raw('distinct unnest(?::uuid[]) as account_id', [accountIds as string[]]));
}

import type { Knex } from 'knex';

/**
 * The hot end-user store's active days (`analytics.end_user_active_days`): one row per
 * organization, app group (`''` for the whole organization) and end user, holding the UTC days on
 * which the end user signed in as a `datemultirange` (runs of consecutive days collapse into one
 * range), and the last of them. The projector maintains it in the same transaction as the hot-store rows it derives from;
 * the nightly purge trims it with them. `/analytics` counts distinct end users of a window as the
 * rows whose days overlap it: one pass over the organization's users instead of every sign-in.
 * Backfilled here from the hot store's logins. Multiranges need PostgreSQL 14 or later.
 * @see docs/api/audit-analytics.md "Hot end-user store"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table analytics.end_user_active_days (
    org_id uuid not null,
    app_group_id text not null,
    end_user_id text not null,
    days datemultirange not null,
    last_day date not null, -- the last of days: compared and indexed without opening the multirange
    primary key (org_id, app_group_id, end_user_id)
  )`);
  // A window's end users: those active since its start; a short window skips the dormant ones.
  await knex.raw('create index end_user_active_days_last on analytics.end_user_active_days (org_id, last_day)');
  await backfillActiveDays(knex);
}

/** Fills `analytics.end_user_active_days` from the hot store's logins (rows already there are kept). */
export async function backfillActiveDays(knex: Knex): Promise<void> {
  await knex.raw(`insert into analytics.end_user_active_days (org_id, app_group_id, end_user_id, days, last_day)
    select org_id, g, end_user_id, range_agg(daterange(d, d, '[]')), max(d)
    from (select org_id, end_user_id, (occurred_at at time zone 'UTC')::date as d, app_group_id
          from analytics.end_user_activity where kind = 'login' and end_user_id is not null) a
    cross join lateral (values (''), (app_group_id)) as v(g)
    where g is not null
    group by org_id, g, end_user_id
    on conflict do nothing`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('analytics').dropTable('end_user_active_days');
}

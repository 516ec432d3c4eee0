import type { Knex } from 'knex';

/**
 * `orgs.member_directory`: the published read contract over an organization's memberships and the
 * accounts behind them — one row per membership: `membership_id`, `org_id`, `account_id`, `email`,
 * `display_name`, `role`, `status`, `created_at`, `updated_at` (the later of the two rows). Plugins
 * that filter members in SQL (SCIM) read this view, never the tables.
 * @see docs/plugins.md "Reading members in SQL"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE VIEW orgs.member_directory AS
    SELECT m.id AS membership_id, m.org_id, m.account_id, a.email, a.display_name, m.role, m.status, m.created_at,
           GREATEST(m.updated_at, a.updated_at) AS updated_at
    FROM orgs.memberships m JOIN accounts.accounts a ON a.id = m.account_id`);
  // `userName eq "…"` (SCIM) and email lookups within an organization go through this index.
  await knex.raw('CREATE INDEX memberships_org_account ON orgs.memberships (org_id, account_id)');
  await knex.raw('CREATE INDEX accounts_email_lower ON accounts.accounts (lower(email))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS accounts.accounts_email_lower');
  await knex.raw('DROP INDEX IF EXISTS orgs.memberships_org_account');
  await knex.raw('DROP VIEW orgs.member_directory');
}

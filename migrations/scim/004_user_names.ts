import type { Knex } from 'knex';

/**
 * A User's `userName` as the identity provider sent it — the SCIM identifier, which need not be an
 * email address (`Test_User_…`, a UPN) — and the `name` sub-attributes of RFC 7643 §4.1.1 beyond
 * the given and family names. `userName` is unique within the organization in any case; the
 * expression index also answers `userName eq "…"` filters. Rows written before this migration keep
 * `user_name` null: their `userName` is the account's email, as it was.
 * @see docs/api/scim.md "Users"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('scim').alterTable('user_attributes', (t) => {
    t.text('user_name');
    t.text('formatted_name');
    t.text('middle_name');
    t.text('honorific_prefix');
    t.text('honorific_suffix');
  });
  await knex.raw('CREATE UNIQUE INDEX user_attributes_user_name ON scim.user_attributes (lower(user_name), org_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS scim.user_attributes_user_name');
  await knex.schema.withSchema('scim').alterTable('user_attributes', (t) => {
    t.dropColumns('user_name', 'formatted_name', 'middle_name', 'honorific_prefix', 'honorific_suffix');
  });
}

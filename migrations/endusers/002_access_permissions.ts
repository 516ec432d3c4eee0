import type { Knex } from 'knex';

/**
 * An end user's permissions for an app group, carried by their tokens as the `permissions` claim;
 * set by an administrator on the end user's access to the group.
 * @see docs/api/endusers.md "Permissions", docs/api/signin.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('endusers').alterTable('access', (t) => {
    t.jsonb('permissions').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('endusers').alterTable('access', (t) => t.dropColumn('permissions'));
}

import type { Knex } from 'knex';

/**
 * Record hash versions: `core.audit_events.hash_version` says which rules a row's hashes follow —
 * 1 (the outbox sealer's; every existing row) or 2 (batch ingestion, whose payload hash leaves
 * `seq` and `sealedAt` to the chain link). See docs/audit.md "Record hash versions".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').alterTable('audit_events', (t) => {
    t.smallint('hash_version').notNullable().defaultTo(1);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').alterTable('audit_events', (t) => t.dropColumn('hash_version'));
}

import type { Knex } from 'knex';

/**
 * Idempotency keys of batch ingestion (`Idempotency-Key` on `POST /api/public/v1/audit/events`):
 * per organization and key, a fingerprint of the request and the chain positions it was sealed at,
 * written in the same transaction as the events, so a retried request answers the first one's
 * result instead of sealing the events again. Kept 24 hours. See docs/api/audit.md "Ingestion".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').createTable('audit_ingest_keys', (t) => {
    t.uuid('org_id').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.bigInteger('first_seq').notNullable();
    t.bigInteger('last_seq').notNullable();
    t.text('chain_hash').notNullable();
    t.timestamp('sealed_at', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'key']);
    t.index(['org_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').dropTable('audit_ingest_keys');
}

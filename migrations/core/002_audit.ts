import type { Knex } from 'knex';

/**
 * The audit chain's tables (schema `core`): the outbox that requests append to inside their own
 * transaction, the sealed per-organization chain, each chain's head, and signed checkpoints.
 */
export async function up(knex: Knex): Promise<void> {
  const s = () => knex.schema.withSchema('core');
  await s().createTable('audit_outbox', (t) => {
    t.bigIncrements('position').primary();
    t.uuid('id').notNullable().unique();
    t.uuid('org_id').notNullable();
    t.text('event_type').notNullable();
    t.timestamp('occurred_at', { useTz: true, precision: 3 }).notNullable();
    t.text('actor_type').notNullable();
    t.text('actor_id').notNullable();
    t.text('app_group_id');
    t.jsonb('business_data').notNullable();
  });
  await s().createTable('audit_events', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.bigInteger('seq').notNullable();
    t.text('event_type').notNullable();
    t.timestamp('occurred_at', { useTz: true, precision: 3 }).notNullable();
    t.text('actor_type').notNullable();
    t.text('actor_id').notNullable();
    t.text('app_group_id');
    t.jsonb('business_data').notNullable();
    t.text('payload_hash').notNullable();
    t.text('prev_hash').notNullable();
    t.text('chain_hash').notNullable();
    t.timestamp('sealed_at', { useTz: true, precision: 3 }).notNullable();
    t.unique(['org_id', 'seq']);
    t.index(['org_id', 'occurred_at']);
    t.index(['org_id', 'event_type', 'occurred_at']);
  });
  await s().createTable('audit_heads', (t) => {
    t.uuid('org_id').primary();
    t.bigInteger('seq').notNullable();
    t.text('chain_hash').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await s().createTable('audit_checkpoints', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('org_id').notNullable();
    t.bigInteger('seq').notNullable();
    t.text('chain_hash').notNullable();
    t.timestamp('sealed_at', { useTz: true, precision: 3 }).notNullable();
    t.text('kid').notNullable();
    t.text('jws').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['org_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['audit_checkpoints', 'audit_heads', 'audit_events', 'audit_outbox']) await knex.schema.withSchema('core').dropTable(table);
}

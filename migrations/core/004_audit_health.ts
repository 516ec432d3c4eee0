import type { Knex } from 'knex';

/**
 * Audit health: when each outbox row was appended (the sealer's lag is the age of the oldest), and
 * the dead-letter table where the sealer moves an event that can never be sealed, with the reason,
 * so one poison event cannot stall its organization's chain or anyone else's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').alterTable('audit_outbox', (t) => {
    t.timestamp('enqueued_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.withSchema('core').createTable('audit_dead_letters', (t) => {
    t.bigInteger('position').primary();
    t.uuid('id').notNullable();
    t.uuid('org_id').notNullable();
    t.text('event_type').notNullable();
    t.timestamp('occurred_at', { useTz: true, precision: 3 }).notNullable();
    t.text('actor_type').notNullable();
    t.text('actor_id').notNullable();
    t.text('app_group_id');
    t.jsonb('business_data').notNullable();
    t.timestamp('enqueued_at', { useTz: true, precision: 3 }).notNullable();
    t.text('reason').notNullable();
    t.timestamp('dead_at', { useTz: true, precision: 3 }).notNullable();
    t.index(['org_id', 'position']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').dropTable('audit_dead_letters');
  await knex.schema.withSchema('core').alterTable('audit_outbox', (t) => t.dropColumn('enqueued_at'));
}

import type { Knex } from 'knex';

/**
 * `core.rate_limits`: the counters of `core.rateLimits`, in the table layout rate-limiter-flexible's
 * PostgreSQL store uses (`key` primary key, `points`, `expire` in epoch milliseconds), shared by every
 * Aerie process on the database.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
    t.index(['expire']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').dropTable('rate_limits');
}

import type { Knex } from 'knex';

/**
 * An index on `core.audit_events (org_id, sealed_at)`: day files cut an organization's chain at UTC
 * midnights by `sealed_at` (the highest seq sealed before a moment), and `aerie audit export` reads a
 * day by it. See docs/audit.md "Archive: day files".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').alterTable('audit_events', (t) => {
    t.index(['org_id', 'sealed_at'], 'audit_events_org_sealed_at_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').alterTable('audit_events', (t) => t.dropIndex(['org_id', 'sealed_at'], 'audit_events_org_sealed_at_idx'));
}

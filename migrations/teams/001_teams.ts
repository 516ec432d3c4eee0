import type { Knex } from 'knex';

/**
 * Teams (groups; the board is the one group of kind `Board`) and the edges between people and
 * groups: `member_of` (person → group; on the board the director roster with `share_percent`),
 * `reporting` (person → manager) and `reference` (dotted line). Automatic reporting edges carry
 * `derived_from_team_id`; they are the only ones re-synced on team changes. Membership ids point at
 * the orgs plugin's rows (no cross-schema foreign keys). Every table carries `org_id`.
 * @see docs/api/teams.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('teams').createTable('teams', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('group_kind').notNullable(); // Team | Board
    t.text('name').notNullable();
    t.text('kind');
    t.uuid('lead_connected_id'); // membership id; the board's lead is its chairman
    t.uuid('parent_team_id').references('id').inTable('teams.teams');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['org_id', 'parent_team_id']);
  });
  // One board per organization.
  await knex.raw("CREATE UNIQUE INDEX teams_one_board ON teams.teams (org_id) WHERE group_kind = 'Board'");

  await knex.schema.withSchema('teams').createTable('edges', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('source_id').notNullable(); // a membership id
    t.uuid('target_id').notNullable(); // a membership id, or a team id for member_of
    t.text('type').notNullable(); // member_of | reporting | reference
    t.uuid('derived_from_team_id').references('id').inTable('teams.teams'); // automatic reporting edges only
    t.boolean('reporting_line').notNullable().defaultTo(true); // member_of: whether the member reports to the lead
    t.decimal('share_percent', 7, 4); // member_of the board
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['org_id', 'type', 'source_id']);
    t.index(['org_id', 'target_id']);
  });
  // One edge per pair and type, and per team for automatic ones (a manual edge may sit beside them).
  await knex.raw(`CREATE UNIQUE INDEX edges_unique ON teams.edges
    (org_id, source_id, target_id, type, coalesce(derived_from_team_id, '00000000-0000-0000-0000-000000000000'::uuid))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('teams').dropTable('edges').dropTable('teams');
}

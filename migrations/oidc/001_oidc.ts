import type { Knex } from 'knex';

/**
 * Storage of each organization's OpenID provider (oidc-provider's adapter models: sessions,
 * interactions, grants, authorization codes, refresh tokens, …) and the one-time codes the hosted
 * login mails to end users. Every row carries `org_id` and every query filters by it: one
 * organization's provider never finds another's rows, even by a guessed id.
 * @see docs/api/signin.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').createTable('payloads', (t) => {
    t.uuid('org_id').notNullable();
    t.text('model').notNullable(); // oidc-provider model name: Session, Grant, RefreshToken, …
    t.text('id').notNullable();
    t.jsonb('payload').notNullable();
    t.text('grant_id');
    t.text('uid');
    t.timestamp('consumed_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.primary(['org_id', 'model', 'id']);
  });
  await knex.raw('CREATE INDEX payloads_grant ON oidc.payloads (org_id, grant_id) WHERE grant_id IS NOT NULL');
  await knex.raw('CREATE INDEX payloads_uid ON oidc.payloads (org_id, model, uid) WHERE uid IS NOT NULL');
  await knex.raw('CREATE INDEX payloads_expiry ON oidc.payloads (expires_at)');

  await knex.schema.withSchema('oidc').createTable('login_codes', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('interaction_uid').notNullable(); // the sign-in the code belongs to
    t.text('email_normalized').notNullable();
    t.uuid('end_user_id'); // null: nobody with this address may sign in (no code was mailed)
    t.text('code_hash').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['org_id', 'interaction_uid']);
    t.index(['org_id', 'email_normalized', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').dropTable('login_codes').dropTable('payloads');
}

import type { Knex } from 'knex';

/**
 * Org Master Seals: one ES256 (ECDSA P-256) signing key pair per organization. The public JWK is
 * kept in clear; the private JWK only envelope-encrypted under the master key with the AAD
 * `orgs.master_seal:<orgId>` (a value copied into another row does not decrypt).
 * @see spec 01 "Organization (public DTO)", "States and transitions"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('orgs').createTable('master_seals', (t) => {
    t.uuid('org_id').primary().references('id').inTable('orgs.organizations').onDelete('CASCADE');
    /** RFC 7638 JWK thumbprint (SHA-256, base64url) of the public key. */
    t.text('kid').notNullable().unique();
    t.text('alg').notNullable();
    t.jsonb('public_jwk').notNullable();
    /** `aev1.…` envelope of the private JWK JSON. */
    t.text('private_jwk_enc').notNullable();
    t.uuid('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('orgs').dropTable('master_seals');
}

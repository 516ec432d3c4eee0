import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { TestAerie } from '../../helpers/harness.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { CryptoService } from '../../../core/crypto/index.ts';
import { orgsRefs, type MasterSealsService } from '../../../plugins/orgs/api.ts';
import { addSealPasskey, authenticatorFor } from '../../helpers/passkey-flows.ts';

describe('orgs: Org Master Seal and ready', () => {
  let aerie: TestAerie;
  let owner: string;
  let ownerKey: string;

  const create = (token: string, slug: string, type: string) =>
    aerie.request('POST', '/api/org/create', { token, body: { name: slug.toUpperCase(), slug, type } });
  const orgOf = async (token: string, slug: string) => (await aerie.request('GET', `/api/org/${slug}`, { token })).body;
  const sealRow = async (slug: string) =>
    (await aerie.sql('select m.* from orgs.master_seals m join orgs.organizations o on o.id = m.org_id where o.slug = ?', [slug]))[0];
  const upgrade = (token: string, slug: string, body: Record<string, unknown>) => aerie.request('POST', `/api/org/${slug}/upgrade-type`, { token, body });

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs'] });
    owner = await aerie.signIn('owner@example.com');
  });
  afterAll(() => aerie?.close());

  it('issues a Corporation its master seal at creation: ES256 key pair, private JWK envelope-encrypted at rest', async () => {
    const res = await create(owner, 'acme', 'Corporation');
    expect(res.status).toBe(201);
    const row = await sealRow('acme');
    expect(row.alg).toBe('ES256');
    expect(row.public_jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: row.kid });
    expect(row.public_jwk.d).toBeUndefined();
    expect(row.kid).toBe(await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: row.public_jwk.x, y: row.public_jwk.y }));
    expect(row.private_jwk_enc).toMatch(/^aev1\./);
    const crypto = aerie.kernel.container.resolve<CryptoService>(coreRefs.crypto.id);
    const privateJwk = JSON.parse(crypto.envelope.decryptText(row.private_jwk_enc, `orgs.master_seal:${res.body.id}`));
    expect(privateJwk).toMatchObject({ kty: 'EC', crv: 'P-256', x: row.public_jwk.x, d: expect.any(String) });
    expect(row.private_jwk_enc).not.toContain(privateJwk.d);
    expect(() => crypto.envelope.decryptText(row.private_jwk_enc, `orgs.master_seal:${randomUUID()}`)).toThrow();

    const seals = aerie.kernel.container.resolve<MasterSealsService>(orgsRefs.masterSeals.id);
    const data = Buffer.from('roost-rearm ticket bytes');
    const signature = await seals.sign(res.body.id, data);
    expect(signature).toHaveLength(64);
    expect(verify('sha256', data, { key: createPublicKey({ key: row.public_jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);

    const pub = await aerie.request('GET', '/api/org/acme/master-seal', { token: owner });
    expect(pub.body).toEqual({ kid: row.kid, alg: 'ES256', publicJwk: row.public_jwk, createdAt: expect.any(String) });
  });

  it('keeps ready false until the owner binds a personal seal, then true (DTO and /me)', async () => {
    expect((await orgOf(owner, 'acme')).ready).toBe(false);
    const auth = authenticatorFor(aerie);
    const opts = await aerie.request('POST', '/api/passkey/add/options', { token: owner, body: {} });
    const added = await aerie.request('POST', '/api/passkey/add', { token: owner, body: { response: auth.createCredential(opts.body.options) } });
    expect(added.status).toBe(201);
    expect((await orgOf(owner, 'acme')).ready).toBe(false); // a passkey is not yet a personal seal
    ownerKey = added.body.passkey.credentialId;
    await aerie.request('GET', '/api/v1/users/me', { token: owner }); // warm the /me cache
    expect((await aerie.request('POST', '/api/v1/seals', { token: owner, body: { credentialId: ownerKey } })).status).toBe(200);
    expect(await orgOf(owner, 'acme')).toMatchObject({ slug: 'acme', type: 'Corporation', ready: true });
    const me = await aerie.request('GET', '/api/v1/users/me', { token: owner });
    expect(me.body.organizations.find((o: { slug: string }) => o.slug === 'acme').ready).toBe(true);
  });

  it('gives other types no master seal: ready stays false even with the owner sealed', async () => {
    expect((await create(owner, 'plain', 'Standard')).status).toBe(201);
    expect(await sealRow('plain')).toBeUndefined();
    expect((await orgOf(owner, 'plain')).ready).toBe(false);
    expect((await aerie.request('GET', '/api/org/plain/master-seal', { token: owner })).status).toBe(404);
  });

  it('lets only the owner change the type (Admin 403, non-member 404), writing nothing on refusal', async () => {
    const admin = await aerie.signIn('admin@example.com');
    const [org] = await aerie.sql("select id from orgs.organizations where slug = 'plain'");
    const [acc] = await aerie.sql("select id from accounts.accounts where email = 'admin@example.com'");
    await aerie.sql("insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at) values (?, ?, ?, 'Admin', 'active', now(), now())", [randomUUID(), org.id, acc.id]);
    const res = await upgrade(admin, 'plain', { type: 'Corporation' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('PERMISSION_DENIED');
    const stranger = await aerie.signIn('stranger@example.com');
    expect((await upgrade(stranger, 'plain', { type: 'Corporation' })).status).toBe(404);
    expect((await orgOf(owner, 'plain')).type).toBe('Standard');
    expect(await sealRow('plain')).toBeUndefined();
  });

  it('upgrades Standard → Corporation: issues the master seal, and ready turns true', async () => {
    const res = await upgrade(owner, 'plain', { type: 'Corporation' });
    expect(res.status).toBe(200);
    const row = await sealRow('plain');
    expect(res.body).toMatchObject({ slug: 'plain', type: 'Corporation', ready: true, role: 'Owner', masterSeal: { kid: row.kid, alg: 'ES256' } });
    expect((await upgrade(owner, 'plain', { type: 'Corporation' })).body.masterSeal.kid).toBe(row.kid); // idempotent
  });

  it('refuses to turn a Corporation into another type (409 TYPE_CHANGE_NOT_ALLOWED)', async () => {
    const res = await upgrade(owner, 'plain', { type: 'Standard' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'TYPE_CHANGE_NOT_ALLOWED', from: 'Corporation', to: 'Standard' });
    expect((await orgOf(owner, 'plain')).type).toBe('Corporation');
  });

  it('issues a master seal to another type on request (masterSeal: true)', async () => {
    await create(owner, 'spv', 'Standard');
    const project = await upgrade(owner, 'spv', { type: 'Project' });
    expect(project.body).toMatchObject({ type: 'Project', masterSeal: null, ready: false });
    const sealed = await upgrade(owner, 'spv', { type: 'Project', masterSeal: true });
    expect(sealed.body).toMatchObject({ type: 'Project', masterSeal: { alg: 'ES256' }, ready: true });
    expect((await upgrade(owner, 'spv', { type: 'Nonprofit' })).status).toBe(400);
  });

  it('turns ready false again when the owner removes the passkey bound as the personal seal', async () => {
    expect((await aerie.request('DELETE', `/api/passkey/${ownerKey}`, { token: owner })).status).toBe(204);
    expect((await orgOf(owner, 'acme')).ready).toBe(false);
    // the seal can be rebuilt from a new passkey
    await addSealPasskey(aerie, owner, authenticatorFor(aerie));
    expect((await orgOf(owner, 'acme')).ready).toBe(true);
  });
});

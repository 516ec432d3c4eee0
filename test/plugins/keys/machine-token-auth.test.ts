import { createHmac, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import type { TestAerie } from '../../helpers/harness.ts';
import type { SigningKeysService } from '../../../plugins/keys/api.ts';
import { createKey, decodeJwt, listKeys, startWithDirectory, tokenFor } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

describe('keys: machine tokens on /api/org/{slug}/* (docs/api/keys.md)', () => {
  const clock = new ManualClock(new Date('2026-10-20T09:00:00Z'));
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let acmeKey: { id: string; value: string };
  let globexKey: { id: string; value: string };
  let signingKeys: SigningKeysService;

  beforeAll(async () => {
    aerie = await startWithDirectory({ clock });
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    acmeKey = await createKey(aerie, acme, { scopes: ['org.api_key.list'] });
    globexKey = await createKey(aerie, globex, { scopes: ['org.api_key.list'] });
    signingKeys = aerie.kernel.container.resolve<SigningKeysService>('keys.signingKeys');
  });
  afterAll(() => aerie?.close());

  /** Signs arbitrary header and claims with an organization's real private key. */
  async function forge(orgSlug: string, header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
    const jwks = await aerie.request('GET', `/api/public/orgs/${orgSlug}/.well-known/jwks.json`);
    const signer = await signingKeys.signer(jwks.body.keys[0].kid);
    const input = `${b64(header)}.${b64(claims)}`;
    return `${input}.${sign('sha256', Buffer.from(input), signer.privateKey).toString('base64url')}`;
  }

  it('lets a token of A in on /api/org/A/… with the scopes it holds; sessions still work there', async () => {
    const token = await tokenFor(aerie, acme, acmeKey.value);
    const res = await listKeys(aerie, 'acme', token);
    expect(res.status).toBe(200);
    expect(res.body.apiKeys.map((k: { id: string }) => k.id)).toContain(acmeKey.id);
    expect(JSON.stringify(res.body)).not.toContain('ah_live_');
    expect((await listKeys(aerie, 'acme', acme.owner)).status).toBe(200);
  });

  it('refuses a token of A on /api/org/B/… (401), and B sees none of A', async () => {
    const token = await tokenFor(aerie, acme, acmeKey.value);
    const res = await listKeys(aerie, 'globex', token);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHORIZED');
    expect((await listKeys(aerie, 'nope-nope', token)).status).toBe(401);
  });

  it('refuses a token signed with the key of another organization (foreign kid), even with A claims', async () => {
    const good = decodeJwt(await tokenFor(aerie, acme, acmeKey.value));
    const globexJwks = await aerie.request('GET', '/api/public/orgs/globex/.well-known/jwks.json');
    const forged = await forge('globex', { ...good.header, kid: globexJwks.body.keys[0].kid }, good.claims);
    expect((await listKeys(aerie, 'acme', forged)).status).toBe(401);
    // …and the same organization's key signing the same claims passes: the forge itself is sound.
    expect((await listKeys(aerie, 'acme', await forge('acme', good.header, good.claims))).status).toBe(200);
  });

  it('refuses alg none, HS256 (keyed with the public modulus), tampered claims and tampered signatures', async () => {
    const token = await tokenFor(aerie, acme, acmeKey.value);
    const { header, claims } = decodeJwt(token);
    const [h, p, s] = token.split('.');
    const jwks = await aerie.request('GET', '/api/public/orgs/acme/.well-known/jwks.json');
    const noneHeader = b64({ ...header, alg: 'none' });
    const hsHeader = b64({ ...header, alg: 'HS256' });
    const hsInput = `${hsHeader}.${p}`;
    const hsSig = createHmac('sha256', Buffer.from(jwks.body.keys[0].n, 'base64url')).update(hsInput).digest('base64url');
    const cases: Record<string, string> = {
      'alg none, empty signature': `${noneHeader}.${p}.`,
      'alg none, original signature': `${noneHeader}.${p}.${s}`,
      'HS256 keyed with the public key': `${hsInput}.${hsSig}`,
      'scope widened': `${h}.${b64({ ...claims, scope: 'org.api_key.list org.role.assign' })}.${s}`,
      'expiry extended': `${h}.${b64({ ...claims, exp: claims.exp + 86400 })}.${s}`,
      'organization swapped': `${h}.${b64({ ...claims, org: 'globex' })}.${s}`,
      'signature flipped': `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`,
      'signature cut': `${h}.${p}.${s.slice(0, 40)}`,
      'two segments': `${h}.${p}`,
      'garbage': 'a.b.c',
    };
    for (const [label, bad] of Object.entries(cases)) {
      const res = await listKeys(aerie, 'acme', bad);
      expect(res.status, label).toBe(401);
    }
    expect((await listKeys(aerie, 'acme', token)).status).toBe(200);
  });

  it('refuses JWTs of the right key that are not machine tokens (typ, missing client_id)', async () => {
    const { header, claims } = decodeJwt(await tokenFor(aerie, acme, acmeKey.value));
    expect((await listKeys(aerie, 'acme', await forge('acme', { ...header, typ: 'JWT' }, claims))).status).toBe(401);
    const { client_id: _omit, ...noClient } = claims;
    expect((await listKeys(aerie, 'acme', await forge('acme', header, noClient))).status).toBe(401);
    expect((await listKeys(aerie, 'acme', await forge('acme', { ...header, crit: ['exp'] }, claims))).status).toBe(401);
  });

  it('refuses an expired token', async () => {
    const token = await tokenFor(aerie, acme, acmeKey.value, { lifetimeSeconds: 60 });
    clock.advance(59);
    expect((await listKeys(aerie, 'acme', token)).status).toBe(200);
    clock.advance(1);
    expect((await listKeys(aerie, 'acme', token)).status).toBe(401);
  });

  it('revoking the key cuts off an issued token on its next request (rule 2)', async () => {
    const key = await createKey(aerie, acme, { scopes: ['org.api_key.list'] });
    const token = await tokenFor(aerie, acme, key.value);
    expect((await listKeys(aerie, 'acme', token)).status).toBe(200);
    const revoked = await aerie.request('DELETE', `/api/org/acme/settings/keys/api-keys/${key.id}`, { token: acme.owner });
    expect(revoked.status).toBe(204);
    const res = await listKeys(aerie, 'acme', token);
    expect(res.status).toBe(401);
    // Other keys' tokens are untouched.
    expect((await listKeys(aerie, 'acme', await tokenFor(aerie, acme, acmeKey.value))).status).toBe(200);
  });

  it('keeps the revocation marker for the key ceiling plus one hour, then sweeps it (rule 5)', async () => {
    const key = await createKey(aerie, acme, { scopes: ['org.api_key.list'], maxTokenLifetimeSeconds: 120 });
    const token = await tokenFor(aerie, acme, key.value, { lifetimeSeconds: 120 });
    await aerie.request('DELETE', `/api/org/acme/settings/keys/api-keys/${key.id}`, { token: acme.owner });
    const [marker] = await aerie.sql('select revoked_at, expires_at from keys.api_key_revocations where key_id = ?', [key.id]);
    expect((marker.expires_at.getTime() - marker.revoked_at.getTime()) / 1000).toBe(120 + 3600);
    expect(marker.revoked_at.toISOString()).toBe(clock.now().toISOString());
    clock.advance(119);
    expect((await listKeys(aerie, 'acme', token)).status).toBe(401);

    const other = await createKey(aerie, acme);
    clock.advance(3600);
    await aerie.request('DELETE', `/api/org/acme/settings/keys/api-keys/${other.id}`, { token: acme.owner });
    await aerie.runSchedule('keys.purge-revocation-markers');
    expect(await aerie.sql('select 1 from keys.api_key_revocations where key_id = ?', [key.id])).toHaveLength(1);
    clock.advance(1);
    await aerie.runSchedule('keys.purge-revocation-markers');
    expect(await aerie.sql('select 1 from keys.api_key_revocations where key_id = ?', [key.id])).toHaveLength(0);
    expect(await aerie.sql('select 1 from keys.api_key_revocations where key_id = ?', [other.id])).toHaveLength(1);
    // The token it guarded has long expired, and the key itself stays revoked.
    expect((await listKeys(aerie, 'acme', token)).status).toBe(401);
    const [row] = await aerie.sql('select revoked_at from keys.api_keys where id = ?', [key.id]);
    expect(row.revoked_at).not.toBeNull();
  });

  it('rotating the signing key refuses tokens it signed at once; new tokens work', async () => {
    const before = await tokenFor(aerie, globex, globexKey.value);
    expect((await listKeys(aerie, 'globex', before)).status).toBe(200);
    const rotated = await aerie.request('POST', '/api/org/globex/settings/keys/signing-key/rotate', { token: globex.owner });
    expect(rotated.status).toBe(200);
    expect((await listKeys(aerie, 'globex', before)).status).toBe(401);
    const after = await tokenFor(aerie, globex, globexKey.value);
    expect(decodeJwt(after).header.kid).toBe(rotated.body.kid);
    expect((await listKeys(aerie, 'globex', after)).status).toBe(200);
  });

  it('is refused on person-only routes and off /api/org; scope-checked elsewhere', async () => {
    const token = await tokenFor(aerie, acme, acmeKey.value);
    expect((await aerie.request('GET', '/api/org/acme', { token })).status).toBe(200);
    expect((await aerie.request('GET', '/api/public/v1/me', { token })).status).toBe(401);
    expect((await aerie.request('POST', '/api/org/acme/settings/keys/signing-key/rotate', { token })).status).toBe(401);
    const create = await aerie.request('POST', '/api/org/acme/settings/keys/api-keys', { token, body: { name: 'x' } });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.api_key.create' });
  });
});

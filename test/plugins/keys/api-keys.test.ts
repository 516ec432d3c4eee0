import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { createKey, requestToken, startWithDirectory } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const BASE = (slug: string) => `/api/org/${slug}/settings/keys/api-keys`;

describe('keys: organization API keys (/api/org/{slug}/settings/keys/api-keys)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let member: string;
  let admin: string;

  beforeAll(async () => {
    aerie = await startWithDirectory();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    member = await aerie.signIn('member@acme.test');
    admin = await aerie.signIn('admin@acme.test');
    for (const [email, role] of [['member@acme.test', 'Member'], ['admin@acme.test', 'Admin']]) {
      await aerie.sql(`insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
        select gen_random_uuid(), ?, id, ?, 'active', now(), now() from accounts.accounts where email = ?`, [acme.id, role, email]);
    }
  });
  afterAll(() => aerie?.close());

  it('creates a key: ah_live_ + 256 random bits, shown once, SHA-256 at rest', async () => {
    const res = await aerie.request('POST', BASE('acme'), { token: acme.owner, body: { name: 'CI deploys', scopes: ['org.api_key.list', 'org.api_key.list', 'org.project.read'] } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { apiKey, ...dto } = res.body;
    expect(apiKey).toMatch(/^ah_live_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(apiKey.slice(8), 'base64url')).toHaveLength(32);
    expect(dto).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'CI deploys', hint: apiKey.slice(-4), appGroupId: null,
      scopes: ['org.api_key.list', 'org.project.read'], maxTokenLifetimeSeconds: null, serviceAccountId: null,
      createdAt: expect.any(String), rotatedAt: null, revokedAt: null,
    });
    const [row] = await aerie.sql('select * from keys.api_keys where id = ?', [dto.id]);
    expect(row.key_hash).toBe(createHash('sha256').update(apiKey).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(apiKey.slice(8, 30));
    expect(row.org_id).toBe(acme.id);
  });

  it('lists keys newest first without their values; revoked keys show revokedAt', async () => {
    const a = await createKey(aerie, acme, { name: 'first' });
    const b = await createKey(aerie, acme, { name: 'second' });
    await aerie.request('DELETE', `${BASE('acme')}/${a.id}`, { token: acme.owner });
    const res = await aerie.request('GET', BASE('acme'), { token: acme.owner });
    expect(res.status).toBe(200);
    const ids = res.body.apiKeys.map((k: { id: string }) => k.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    expect(JSON.stringify(res.body)).not.toContain('ah_live_');
    expect(res.body.apiKeys.every((k: object) => !('apiKey' in k))).toBe(true);
    expect(res.body.apiKeys.find((k: { id: string }) => k.id === a.id).revokedAt).toEqual(expect.any(String));
    const other = await aerie.request('GET', BASE('globex'), { token: globex.owner });
    expect(other.body.apiKeys.map((k: { id: string }) => k.id)).not.toContain(b.id);
  });

  it('rotates a key: new value, the old one dead at once, id and settings kept', async () => {
    await aerie.request('PUT', `/api/test-directory/app-groups/${acme.id}/ag-1`, {});
    const k = await createKey(aerie, acme, { name: 'rotating', appGroupId: 'ag-1', scopes: ['org.project.read'], maxTokenLifetimeSeconds: 120 });
    const res = await aerie.request('POST', `${BASE('acme')}/${k.id}/rotate`, { token: acme.owner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: k.id, name: 'rotating', appGroupId: 'ag-1', scopes: ['org.project.read'], maxTokenLifetimeSeconds: 120, rotatedAt: expect.any(String) });
    expect(res.body.apiKey).toMatch(/^ah_live_/);
    expect(res.body.apiKey).not.toBe(k.value);
    expect((await requestToken(aerie, { orgSlug: 'acme', apiKey: k.value })).status).toBe(401);
    expect((await requestToken(aerie, { orgSlug: 'acme', apiKey: res.body.apiKey })).status).toBe(200);
  });

  it('revokes a key (204, idempotent); unknown, malformed and foreign ids are 404', async () => {
    const k = await createKey(aerie, acme);
    const g = await createKey(aerie, globex);
    expect((await aerie.request('DELETE', `${BASE('acme')}/${k.id}`, { token: acme.owner })).status).toBe(204);
    expect((await aerie.request('DELETE', `${BASE('acme')}/${k.id}`, { token: acme.owner })).status).toBe(204);
    expect(await aerie.sql('select 1 from keys.api_key_revocations where key_id = ?', [k.id])).toHaveLength(1);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', g.id]) {
      const res = await aerie.request('DELETE', `${BASE('acme')}/${id}`, { token: acme.owner });
      expect(res.status, id).toBe(404);
      expect((await aerie.request('POST', `${BASE('acme')}/${id}/rotate`, { token: acme.owner })).status, id).toBe(404);
    }
    expect((await aerie.request('POST', `${BASE('acme')}/${k.id}/rotate`, { token: acme.owner })).status).toBe(404);
    // globex's key was untouched by acme's owner.
    expect((await requestToken(aerie, { orgSlug: 'globex', apiKey: g.value })).status).toBe(200);
    expect((await aerie.request('DELETE', `${BASE('globex')}/${g.id}`, { token: acme.owner })).status).toBe(404);
  });

  it('is for Owner and Admin: members get 403 PERMISSION_DENIED, outsiders 404, anonymous 401', async () => {
    const k = await createKey(aerie, acme);
    const calls: Array<[string, string, unknown?]> = [
      ['POST', BASE('acme'), { name: 'x' }], ['GET', BASE('acme')], ['POST', `${BASE('acme')}/${k.id}/rotate`], ['DELETE', `${BASE('acme')}/${k.id}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await aerie.request(method, path, { token: member, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ error: 'PERMISSION_DENIED', required: expect.stringMatching(/^org\.api_key\./) });
      expect((await aerie.request(method, path, { token: globex.owner, body })).status).toBe(404);
      expect((await aerie.request(method, path, { body })).status).toBe(401);
    }
    expect((await aerie.request('POST', BASE('acme'), { token: admin, body: { name: 'by admin', maxTokenLifetimeSeconds: 300 } })).status).toBe(201);
    expect((await aerie.request('GET', BASE('acme'), { token: admin })).status).toBe(200);
  });

  it.each([
    ['missing name', {}, 'name'],
    ['blank name', { name: '  ' }, 'name'],
    ['ceiling below 60', { name: 'x', maxTokenLifetimeSeconds: 59 }, 'maxTokenLifetimeSeconds'],
    ['ceiling above 7 days', { name: 'x', maxTokenLifetimeSeconds: 604801 }, 'maxTokenLifetimeSeconds'],
    ['fractional ceiling', { name: 'x', maxTokenLifetimeSeconds: 120.5 }, 'maxTokenLifetimeSeconds'],
    ['ceiling as text', { name: 'x', maxTokenLifetimeSeconds: '120' }, 'maxTokenLifetimeSeconds'],
    ['scopes not a list', { name: 'x', scopes: 'org.project.read' }, 'scopes'],
    ['malformed scope', { name: 'x', scopes: ['org.project.read', 'Not A Scope'] }, 'scopes'],
    ['unknown field', { name: 'x', value: 'ah_live_mine' }, 'value'],
  ])('refuses %s with 400 and creates nothing', async (_label, body, field) => {
    const before = await aerie.sql('select count(*)::int as n from keys.api_keys');
    const res = await aerie.request('POST', BASE('acme'), { token: acme.owner, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field });
    expect(await aerie.sql('select count(*)::int as n from keys.api_keys')).toEqual(before);
  });

  it('app-group keys need an app group of this organization', async () => {
    await aerie.request('PUT', `/api/test-directory/app-groups/${globex.id}/ag-globex`, {});
    const res = await aerie.request('POST', BASE('acme'), { token: acme.owner, body: { name: 'x', appGroupId: 'ag-globex' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'APP_GROUP_NOT_FOUND', field: 'appGroupId' });
    const ok = await aerie.request('POST', BASE('acme'), { token: acme.owner, body: { name: 'x', appGroupId: 'ag-1' } });
    expect(ok.status).toBe(201);
    expect(ok.body.appGroupId).toBe('ag-1');
  });

  it('records org.api_key.created, .rotated and .revoked on the audit chain, with the acting account', async () => {
    const k = await createKey(aerie, acme, { name: 'audited', scopes: ['org.project.read'] });
    await aerie.request('POST', `${BASE('acme')}/${k.id}/rotate`, { token: acme.owner });
    await aerie.request('DELETE', `${BASE('acme')}/${k.id}`, { token: admin });
    const events = (await auditEvents(aerie, { id: acme.id })).filter((e) => e.businessData.keyId === k.id);
    expect(events.map((e) => e.eventType)).toEqual(['org.api_key.created', 'org.api_key.rotated', 'org.api_key.revoked']);
    expect(events[0].businessData).toMatchObject({ keyId: k.id, name: 'audited', scopes: ['org.project.read'], maxTokenLifetimeSeconds: null });
    const [owner] = await aerie.sql("select id from accounts.accounts where email = 'owner@acme.test'");
    const [adminRow] = await aerie.sql("select id from accounts.accounts where email = 'admin@acme.test'");
    expect(events.map((e) => e.actorId)).toEqual([owner.id, owner.id, adminRow.id]);
    expect(JSON.stringify(events)).not.toContain('ah_live_');
  });

  it('a ceiling up to 300 s needs neither the owner nor a seal; the ceiling cannot be changed afterwards', async () => {
    for (const ceiling of [60, 300]) {
      const res = await aerie.request('POST', BASE('acme'), { token: admin, body: { name: `c${ceiling}`, maxTokenLifetimeSeconds: ceiling } });
      expect(res.status).toBe(201);
      expect(res.body.maxTokenLifetimeSeconds).toBe(ceiling);
    }
    const k = await createKey(aerie, acme, { maxTokenLifetimeSeconds: 120 });
    for (const method of ['PUT', 'PATCH']) {
      const res = await aerie.request(method, `${BASE('acme')}/${k.id}`, { token: acme.owner, body: { maxTokenLifetimeSeconds: 300 } });
      expect(res.status, method).toBeGreaterThanOrEqual(404);
      expect(res.status, method).toBeLessThan(406);
    }
    const [row] = await aerie.sql('select max_token_lifetime_seconds from keys.api_keys where id = ?', [k.id]);
    expect(row.max_token_lifetime_seconds).toBe(120);
  });
});

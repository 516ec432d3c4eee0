import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { createKey, startWithDirectory } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

/** Adds `email` (signed in first) to an organization with a role and status (test set-up). */
async function addMember(aerie: TestAerie, org: TestOrg, email: string, role: string, status = 'active'): Promise<void> {
  await aerie.signIn(email);
  await aerie.sql(`insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
    select gen_random_uuid(), ?, id, ?, ?, now(), now() from accounts.accounts where email = ?`, [org.id, role, status, email]);
}

describe('public-api: /api/public/v1 with organization API keys', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let acmeTwo: TestOrg;
  let globex: TestOrg;
  let key: { id: string; value: string };
  let globexKey: { id: string; value: string };
  let appGroupKey: { id: string; value: string };

  const get = (path: string, apiKey?: string, headers: Record<string, string> = {}) =>
    aerie.request('GET', path, { headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers } });
  const post = (path: string, body: unknown, apiKey = key.value) => aerie.request('POST', path, { body, headers: { 'x-api-key': apiKey } });

  beforeAll(async () => {
    aerie = await startWithDirectory();
    acme = await signInWithOrg(aerie, 'Ann@Acme.test', 'acme');
    acmeTwo = await signInWithOrg(aerie, 'ann@acme.test', 'acme-two');
    globex = await signInWithOrg(aerie, 'gus@globex.test', 'globex');
    key = await createKey(aerie, acme, { name: 'partner', scopes: ['org.api_key.list'] });
    globexKey = await createKey(aerie, globex);
    await aerie.request('PUT', `/api/test-directory/app-groups/${acme.id}/ag-web`, {});
    appGroupKey = await createKey(aerie, acme, { name: 'web app', appGroupId: 'ag-web' });
    await addMember(aerie, acme, 'ada@acme.test', 'Admin');
    await addMember(aerie, acme, 'mo@acme.test', 'Member');
    await addMember(aerie, acme, 'sam@acme.test', 'Admin', 'suspended');
    await addMember(aerie, globex, 'ann@acme.test', 'Admin');
  });
  afterAll(() => aerie?.close());

  describe('API-key authentication', () => {
    it('accepts X-Api-Key and Authorization: Bearer <API_KEY>', async () => {
      expect((await get('/api/public/v1/me', key.value)).status).toBe(200);
      expect((await get('/api/public/v1/me', undefined, { authorization: `Bearer ${key.value}` })).status).toBe(200);
    });

    it('refuses missing, malformed, unknown and revoked keys, session tokens and machine tokens with 401', async () => {
      const revoked = await createKey(aerie, acme);
      expect((await aerie.request('DELETE', `/api/org/acme/settings/keys/api-keys/${revoked.id}`, { token: acme.owner })).status).toBe(204);
      const token = (await aerie.request('POST', '/api/m2m/token', { body: { orgSlug: 'acme', apiKey: key.value } })).body.accessToken;
      const cases: Array<[string, Record<string, string>]> = [
        ['no credential', {}],
        ['malformed', { 'x-api-key': 'hello' }],
        ['empty', { 'x-api-key': '' }],
        ['unknown', { 'x-api-key': `ah_live_${'x'.repeat(43)}` }],
        ['truncated', { 'x-api-key': key.value.slice(0, -2) }],
        ['very long', { 'x-api-key': `ah_live_${'x'.repeat(5000)}` }],
        ['revoked', { 'x-api-key': revoked.value }],
        ['session token', { authorization: `Bearer ${acme.owner}` }],
        ['machine token', { authorization: `Bearer ${token}` }],
      ];
      for (const [label, headers] of cases) {
        const res = await get('/api/public/v1/me', undefined, headers);
        expect(res.status, label).toBe(401);
        expect(res.body.error, label).toBe('UNAUTHORIZED');
      }
    });

    it('a rotated key works with its new value only', async () => {
      const k = await createKey(aerie, acme);
      const rotated = await aerie.request('POST', `/api/org/acme/settings/keys/api-keys/${k.id}/rotate`, { token: acme.owner });
      expect((await get('/api/public/v1/me', k.value)).status).toBe(401);
      expect((await get('/api/public/v1/me', rotated.body.apiKey)).status).toBe(200);
    });

    it('refuses keys bound to a service account once it is suspended', async () => {
      await aerie.request('PUT', `/api/test-directory/service-accounts/${acme.id}/svc-1`, { body: { status: 'active' } });
      const k = await createKey(aerie, acme, { serviceAccountId: 'svc-1' });
      expect((await get('/api/public/v1/me', k.value)).status).toBe(200);
      await aerie.request('PUT', `/api/test-directory/service-accounts/${acme.id}/svc-1`, { body: { status: 'suspended' } });
      expect((await get('/api/public/v1/me', k.value)).status).toBe(401);
    });
  });

  it('GET /me answers the organization behind the key and the key itself (never its value)', async () => {
    const res = await get('/api/public/v1/me', key.value);
    const base = aerie.kernel.config.baseUrl;
    expect(res.body).toEqual({
      id: acme.id, name: 'Org acme', slug: 'acme', ready: false,
      issuer: `${base}/api/public/orgs/acme`, jwksUri: `${base}/api/public/orgs/acme/.well-known/jwks.json`,
      key: {
        id: key.id, name: 'partner', hint: key.value.slice(-4), appGroupId: null, scopes: ['org.api_key.list'],
        maxTokenLifetimeSeconds: null, serviceAccountId: null, createdAt: expect.any(String), rotatedAt: null,
      },
    });
    const ag = await get('/api/public/v1/me', appGroupKey.value);
    expect(ag.status).toBe(200);
    expect(ag.body.key.appGroupId).toBe('ag-web');
    expect((await get('/api/public/v1/me', globexKey.value)).body.slug).toBe('globex');
  });

  describe('POST /orgs/by-owner', () => {
    it('lists the organizations the email owns, oldest first, as {id, name, slug, ready}', async () => {
      const res = await post('/api/public/v1/orgs/by-owner', { ownerEmail: 'ANN@acme.test' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { id: acme.id, name: 'Org acme', slug: 'acme', ready: false },
        { id: acmeTwo.id, name: 'Org acme-two', slug: 'acme-two', ready: false },
      ]);
    });

    it('answers an empty list for no account and for an account owning nothing (admin elsewhere is not owning)', async () => {
      for (const ownerEmail of ['nobody@nowhere.test', 'ada@acme.test', 'mo@acme.test']) {
        const res = await post('/api/public/v1/orgs/by-owner', { ownerEmail });
        expect(res.status, ownerEmail).toBe(200);
        expect(res.body, ownerEmail).toEqual([]);
      }
      expect((await post('/api/public/v1/orgs/by-owner', { ownerEmail: 'gus@globex.test' })).body.map((o: { slug: string }) => o.slug)).toEqual(['globex']);
    });

    it('refuses a malformed body with 400 and a missing key with 401', async () => {
      expect((await post('/api/public/v1/orgs/by-owner', { ownerEmail: 'not-an-email' })).status).toBe(400);
      expect((await post('/api/public/v1/orgs/by-owner', {})).status).toBe(400);
      expect((await aerie.request('POST', '/api/public/v1/orgs/by-owner', { body: { ownerEmail: 'ann@acme.test' } })).status).toBe(401);
    });
  });

  describe('POST /orgs/match', () => {
    it('answers the organization of that owner with that name (case and spaces ignored)', async () => {
      const res = await post('/api/public/v1/orgs/match', { ownerEmail: 'ann@acme.test', orgName: '  org ACME-two ' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: acmeTwo.id, name: 'Org acme-two', slug: 'acme-two', ready: false });
    });

    it('answers 404 when the owner has no organization of that name', async () => {
      for (const body of [
        { ownerEmail: 'ann@acme.test', orgName: 'Org globex' },
        { ownerEmail: 'ada@acme.test', orgName: 'Org acme' },
        { ownerEmail: 'nobody@nowhere.test', orgName: 'Org acme' },
      ]) {
        const res = await post('/api/public/v1/orgs/match', body);
        expect(res.status, JSON.stringify(body)).toBe(404);
        expect(res.body.error).toBe('NOT_FOUND');
      }
    });
  });

  describe('POST /orgs/by-id', () => {
    it('answers {id, name, slug, ready}', async () => {
      const res = await post('/api/public/v1/orgs/by-id', { orgId: globex.id });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: globex.id, name: 'Org globex', slug: 'globex', ready: false });
    });

    it.each([['00000000-0000-4000-8000-000000000000'], ['not-a-uuid'], ["'; drop table x; --"]])('answers 404 for unknown id %j', async (orgId) => {
      const res = await post('/api/public/v1/orgs/by-id', { orgId });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    });
  });

  describe('GET /orgs/operators', () => {
    it("lists the key's organization's active owners and admins only", async () => {
      const res = await get('/api/public/v1/orgs/operators', key.value);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ orgId: acme.id, operators: [{ email: 'ann@acme.test', role: 'Owner' }, { email: 'ada@acme.test', role: 'Admin' }] });
      const other = await get('/api/public/v1/orgs/operators', globexKey.value);
      expect(other.body).toEqual({ orgId: globex.id, operators: [{ email: 'gus@globex.test', role: 'Owner' }, { email: 'ann@acme.test', role: 'Admin' }] });
    });

    it('refuses an app-group-scoped key with 401', async () => {
      const res = await get('/api/public/v1/orgs/operators', appGroupKey.value);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('UNAUTHORIZED');
    });
  });
});

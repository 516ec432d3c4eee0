import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { createKey, decodeJwt, listKeys, requestToken, startWithDirectory, tokenFor } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

describe('keys: POST /api/m2m/token', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let key: { id: string; value: string };

  beforeAll(async () => {
    aerie = await startWithDirectory();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    key = await createKey(aerie, acme, { scopes: ['org.api_key.list', 'org.project.*'] });
  });
  afterAll(() => aerie?.close());

  it('answers exactly {accessToken, tokenType, expiresIn, org}, uncacheable', async () => {
    const res = await requestToken(aerie, { orgSlug: 'acme', apiKey: key.value });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'expiresIn', 'org', 'tokenType']);
    expect(res.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 300, org: 'acme' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('takes the slug in any case, as paths do, and answers it as stored', async () => {
    for (const orgSlug of ['ACME', 'Acme']) {
      const res = await requestToken(aerie, { orgSlug, apiKey: key.value });
      expect(res.status).toBe(200);
      expect(res.body.org).toBe('acme');
    }
  });

  it('signs RS256 with the organization key and carries iss, sub, aud, org, scope, jti, iat, exp', async () => {
    const token = await tokenFor(aerie, acme, key.value);
    const { header, claims } = decodeJwt(token);
    const jwks = await aerie.request('GET', '/api/public/orgs/acme/.well-known/jwks.json');
    expect(header).toEqual({ alg: 'RS256', typ: 'at+jwt', kid: jwks.body.keys[0].kid });
    const base = aerie.kernel.config.baseUrl;
    expect(claims).toMatchObject({
      iss: `${base}/api/public/orgs/acme`, sub: key.id, aud: `${base}/api/org/acme`, org: 'acme',
      scope: 'org.api_key.list org.project.*', client_id: key.id,
    });
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims.exp - claims.iat).toBe(300);
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(30);
    const again = decodeJwt(await tokenFor(aerie, acme, key.value)).claims;
    expect(again.jti).not.toBe(claims.jti);
  });

  describe('scope narrows what the key holds (rule 1)', () => {
    it.each([
      ['org.project.read', 'org.project.read'],
      ['org.project.read org.api_key.list', 'org.project.read org.api_key.list'],
      [['org.project.read', 'org.project.list'], 'org.project.read org.project.list'],
      ['org.project.*', 'org.project.*'],
      ['org.project.read:project=P1', 'org.project.read:project=P1'],
      ['', ''],
    ])('scope %j gives %j', async (scope, granted) => {
      const res = await requestToken(aerie, { orgSlug: 'acme', apiKey: key.value, scope });
      expect(res.status).toBe(200);
      expect(decodeJwt(res.body.accessToken).claims.scope).toBe(granted);
    });

    it.each([
      ['org.role.assign', 'org.role.assign'],
      ['org.project.read org.role.assign', 'org.role.assign'],
      ['org.*', 'org.*'],
      ['*', '*'],
      ['not-a-scope!', 'not-a-scope!'],
      ['org.project.read NOPE', 'NOPE'],
    ])('asking for %j is 403 PERMISSION_DENIED naming %j', async (scope, named) => {
      const res = await requestToken(aerie, { orgSlug: 'acme', apiKey: key.value, scope });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'PERMISSION_DENIED', errorCode: 'PERMISSION_DENIED', required: named });
      expect(res.body.message).toContain(named);
    });

    it('a narrowed token can do only what it holds', async () => {
      const narrow = await tokenFor(aerie, acme, key.value, { scope: 'org.project.read' });
      const res = await listKeys(aerie, 'acme', narrow);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.api_key.list' });
      expect((await listKeys(aerie, 'acme', await tokenFor(aerie, acme, key.value))).status).toBe(200);
    });
  });

  it('refuses a key of organization A used with orgSlug B (401), and unknown or malformed keys', async () => {
    const cases = [
      { orgSlug: 'globex', apiKey: key.value },
      { orgSlug: 'nope-nope', apiKey: key.value },
      { orgSlug: 'acme', apiKey: `ah_live_${'A'.repeat(43)}` },
      { orgSlug: 'acme', apiKey: 'not-a-key' },
      { orgSlug: 'acme', apiKey: key.value.slice(0, -1) },
    ];
    for (const body of cases) {
      const res = await requestToken(aerie, body);
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(res.body.error).toBe('UNAUTHORIZED');
    }
    const globexKey = await createKey(aerie, globex);
    expect((await requestToken(aerie, { orgSlug: 'acme', apiKey: globexKey.value })).status).toBe(401);
    expect((await requestToken(aerie, { orgSlug: 'globex', apiKey: globexKey.value })).status).toBe(200);
  });

  it('refuses a revoked key and the old value of a rotated key', async () => {
    const k = await createKey(aerie, acme);
    const rotated = await aerie.request('POST', `/api/org/acme/settings/keys/api-keys/${k.id}/rotate`, { token: acme.owner });
    expect(rotated.status).toBe(200);
    expect((await requestToken(aerie, { orgSlug: 'acme', apiKey: k.value })).status).toBe(401);
    expect((await requestToken(aerie, { orgSlug: 'acme', apiKey: rotated.body.apiKey })).status).toBe(200);
    expect((await aerie.request('DELETE', `/api/org/acme/settings/keys/api-keys/${k.id}`, { token: acme.owner })).status).toBe(204);
    expect((await requestToken(aerie, { orgSlug: 'acme', apiKey: rotated.body.apiKey })).status).toBe(401);
  });

  it.each([
    ['missing apiKey', { orgSlug: 'acme' }, 'apiKey'],
    ['missing orgSlug', { apiKey: 'x' }, 'orgSlug'],
    ['unknown field', { orgSlug: 'acme', apiKey: 'x', grant_type: 'client_credentials' }, 'grant_type'],
    ['scope of the wrong type', { orgSlug: 'acme', apiKey: 'x', scope: 5 }, 'scope'],
  ])('refuses %s with 400', async (_label, body, field) => {
    const res = await requestToken(aerie, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field });
  });

  describe('service-account keys (rules 2 and 6)', () => {
    it('issue tokens whose sub is the service account while it is active, and none once it is suspended', async () => {
      const sa = 'svc-reporting';
      await aerie.request('PUT', `/api/test-directory/service-accounts/${acme.id}/${sa}`, { body: { status: 'active' } });
      const k = await createKey(aerie, acme, { serviceAccountId: sa, scopes: ['org.api_key.list'] });
      expect(k.body.serviceAccountId).toBe(sa);
      const token = await tokenFor(aerie, acme, k.value);
      expect(decodeJwt(token).claims).toMatchObject({ sub: sa, client_id: k.id });
      expect((await listKeys(aerie, 'acme', token)).status).toBe(200);

      await aerie.request('PUT', `/api/test-directory/service-accounts/${acme.id}/${sa}`, { body: { status: 'suspended' } });
      expect((await requestToken(aerie, { orgSlug: 'acme', apiKey: k.value })).status).toBe(401);
      expect((await listKeys(aerie, 'acme', token)).status).toBe(401);
      await aerie.request('PUT', `/api/test-directory/service-accounts/${acme.id}/${sa}`, { body: { status: 'revoked' } });
      expect((await listKeys(aerie, 'acme', token)).status).toBe(401);
      await aerie.request('PUT', `/api/test-directory/service-accounts/${acme.id}/${sa}`, { body: { status: 'active' } });
      expect((await listKeys(aerie, 'acme', token)).status).toBe(200);
    });

    it('cannot bind a key to a service account that is unknown or not active', async () => {
      await aerie.request('PUT', `/api/test-directory/service-accounts/${acme.id}/svc-old`, { body: { status: 'revoked' } });
      for (const serviceAccountId of ['svc-unknown', 'svc-old']) {
        const res = await aerie.request('POST', '/api/org/acme/settings/keys/api-keys', { token: acme.owner, body: { name: 'x', serviceAccountId } });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: 'SERVICE_ACCOUNT_NOT_FOUND', field: 'serviceAccountId' });
      }
    });
  });

  it('app-group-scoped keys issue tokens carrying the app group, refused on organization-wide routes', async () => {
    await aerie.request('PUT', `/api/test-directory/app-groups/${acme.id}/ag-1`, {});
    const k = await createKey(aerie, acme, { appGroupId: 'ag-1', scopes: ['org.api_key.list'] });
    const token = await tokenFor(aerie, acme, k.value);
    expect(decodeJwt(token).claims.app_group).toBe('ag-1');
    const res = await listKeys(aerie, 'acme', token);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHORIZED');
    // Every organization route today is organization-wide: the kernel refuses app-group credentials on all.
    for (const path of ['/api/org/acme/members', '/api/org/acme/roles', '/api/org/acme']) {
      const other = await aerie.request('GET', path, { token });
      expect(other.status).toBe(401);
      expect(other.body.message).toMatch(/organization-wide/);
    }
  });
});

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { appsRefs } from '../../../plugins/apps/api.ts';
import { addMembership, createGroup } from './helpers.ts';

const BASE = (slug: string) => `/api/org/${slug}/applications`;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('apps: applications (/api/org/{slug}/applications)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let member: string;
  let outsider: string;
  let groupId: string;

  const create = (body: Record<string, unknown>, token = acme.owner) =>
    aerie.request('POST', BASE('acme'), { token, body: { appGroupId: groupId, name: 'App', kind: 'Web', environment: 'Production', ...body } });

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
    outsider = await aerie.signIn('nobody@else.test');
    groupId = (await createGroup(aerie, acme, { name: 'Shop' })).id;
  });
  afterAll(() => aerie?.close());

  it('creates a confidential client: secret shown once, stored as SHA-256, never in GET or the audit chain', async () => {
    const res = await create({ redirectUris: ['https://shop.acme.test/cb', 'http://localhost:3000/cb'], postLogoutRedirectUris: ['https://shop.acme.test/bye'], tokenEndpointAuthMethod: 'client_secret_post' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { clientSecret, ...app } = res.body;
    expect(clientSecret).toMatch(/^secret_[A-Za-z0-9_-]{43}$/);
    expect(app).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), appGroupId: groupId, name: 'App', kind: 'Web', environment: 'Production', status: 'active',
      clientKey: expect.stringMatching(/^client_[A-Za-z0-9_-]{22}$/), redirectUris: ['https://shop.acme.test/cb', 'http://localhost:3000/cb'],
      postLogoutRedirectUris: ['https://shop.acme.test/bye'], grantTypes: ['authorization_code', 'refresh_token'], allowedScopes: ['openid', 'profile', 'email'],
      pkceRequired: true, tokenEndpointAuthMethod: 'client_secret_post', firstParty: true, confidential: true, saml: null, secretRotatedAt: null, createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const [row] = await aerie.sql('select org_id, secret_hash from apps.applications where id = ?', [app.id]);
    expect(row).toEqual({ org_id: acme.id, secret_hash: sha256(clientSecret) });
    const got = await aerie.request('GET', `${BASE('acme')}/${app.id}`, { token: acme.owner });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(app);
    const list = await aerie.request('GET', `${BASE('acme')}?appGroupId=${groupId}`, { token: acme.owner });
    expect(list.body.applications.find((a: any) => a.id === app.id)).toEqual(app);
    expect(JSON.stringify([got.body, list.body])).not.toContain(clientSecret);
    expect(JSON.stringify([got.body, list.body])).not.toMatch(/clientSecret|secretHash|secret_hash/);
    const audit = (await auditEvents(aerie, acme, 'org.application.created')).find((e) => e.businessData.applicationId === app.id)!;
    expect(audit.businessData).toMatchObject({ appGroupId: groupId, kind: 'Web', clientKey: app.clientKey, tokenEndpointAuthMethod: 'client_secret_post' });
    expect(JSON.stringify(audit)).not.toContain(clientSecret);
    expect(JSON.stringify(audit)).not.toContain(sha256(clientSecret));
  });

  it('rotate-secret: a new secret shown once; the old hash stops matching at once', async () => {
    const { body: app } = await create({ kind: 'Machine', grantTypes: ['client_credentials'] });
    const apps = aerie.kernel.container.resolve<import('../../../plugins/apps/api.ts').ApplicationsService>(appsRefs.applications.id);
    expect(await apps.verifySecret(app.clientKey, app.clientSecret)).toBe(true);
    const res = await aerie.request('POST', `${BASE('acme')}/${app.id}/rotate-secret`, { token: acme.owner });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.clientSecret).toMatch(/^secret_/);
    expect(res.body.clientSecret).not.toBe(app.clientSecret);
    expect(res.body.secretRotatedAt).toEqual(expect.any(String));
    const [row] = await aerie.sql('select secret_hash from apps.applications where id = ?', [app.id]);
    expect(row.secret_hash).toBe(sha256(res.body.clientSecret));
    expect(await apps.verifySecret(app.clientKey, app.clientSecret)).toBe(false);
    expect(await apps.verifySecret(app.clientKey, res.body.clientSecret)).toBe(true);
    const [event] = (await auditEvents(aerie, acme, 'org.application.secret_rotated')).filter((e) => e.businessData.applicationId === app.id);
    expect(JSON.stringify(event)).not.toContain(res.body.clientSecret);
  });

  it('public clients (Spa, Native): no secret, auth none, PKCE always; rotate-secret refused', async () => {
    for (const kind of ['Spa', 'Native']) {
      const res = await create({ kind });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ kind, confidential: false, clientSecret: null, tokenEndpointAuthMethod: 'none', pkceRequired: true });
      const [row] = await aerie.sql('select secret_hash from apps.applications where id = ?', [res.body.id]);
      expect(row.secret_hash).toBeNull();
      const rotate = await aerie.request('POST', `${BASE('acme')}/${res.body.id}/rotate-secret`, { token: acme.owner });
      expect([rotate.status, rotate.body.error]).toEqual([400, 'CLIENT_CONFIG_INVALID']);
    }
  });

  it('updates the configuration and the status, each audited', async () => {
    const { body: app } = await create({});
    const put = await aerie.request('PUT', `${BASE('acme')}/${app.id}`, { token: acme.owner, body: { name: 'Renamed', redirectUris: ['https://new.acme.test/cb'], allowedScopes: ['openid'] } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Renamed', redirectUris: ['https://new.acme.test/cb'], allowedScopes: ['openid'], tokenEndpointAuthMethod: 'client_secret_basic' });
    expect(put.body).not.toHaveProperty('clientSecret');
    const off = await aerie.request('PATCH', `${BASE('acme')}/${app.id}/status`, { token: acme.owner, body: { status: 'disabled' } });
    expect([off.status, off.body.status]).toEqual([200, 'disabled']);
    const apps = aerie.kernel.container.resolve<import('../../../plugins/apps/api.ts').ApplicationsService>(appsRefs.applications.id);
    expect(await apps.verifySecret(app.clientKey, app.clientSecret)).toBe(false);
    const bad = await aerie.request('PATCH', `${BASE('acme')}/${app.id}/status`, { token: acme.owner, body: { status: 'deleted' } });
    expect([bad.status, bad.body.error]).toEqual([400, 'VALIDATION_FAILED']);
    const types = (await auditEvents(aerie, acme)).filter((e) => e.businessData.applicationId === app.id).map((e) => e.eventType);
    expect(types).toEqual(['org.application.created', 'org.application.updated', 'org.application.status_changed']);
    const del = await aerie.request('DELETE', `${BASE('acme')}/${app.id}`, { token: acme.owner });
    expect(del.status).toBe(204);
    expect(await aerie.sql('select id from apps.applications where id = ?', [app.id])).toEqual([]);
    expect((await auditEvents(aerie, acme, 'org.application.deleted')).some((e) => e.businessData.applicationId === app.id)).toBe(true);
  });

  const bad: Array<[string, Record<string, unknown>, number, string, string | undefined]> = [
    ['a wildcard redirect URI', { redirectUris: ['https://*.acme.test/cb'] }, 400, 'VALIDATION_FAILED', 'redirectUris'],
    ['a relative redirect URI', { redirectUris: ['/cb'] }, 400, 'VALIDATION_FAILED', 'redirectUris'],
    ['a redirect URI with a fragment', { redirectUris: ['https://acme.test/cb#x'] }, 400, 'VALIDATION_FAILED', 'redirectUris'],
    ['an http redirect URI off localhost', { redirectUris: ['http://acme.test/cb'] }, 400, 'VALIDATION_FAILED', 'redirectUris'],
    ['a custom-scheme redirect URI', { redirectUris: ['myapp://cb'] }, 400, 'VALIDATION_FAILED', 'redirectUris'],
    ['a wildcard post-logout URI', { postLogoutRedirectUris: ['https://acme.test/*'] }, 400, 'VALIDATION_FAILED', 'postLogoutRedirectUris'],
    ['a redirect URI of the wrong type', { redirectUris: 'https://acme.test/cb' }, 400, 'VALIDATION_FAILED', 'redirectUris'],
    ['client_credentials on a Web app', { grantTypes: ['client_credentials'] }, 400, 'CLIENT_CONFIG_INVALID', 'grantTypes'],
    ['client_credentials on a Spa', { kind: 'Spa', grantTypes: ['authorization_code', 'client_credentials'] }, 400, 'CLIENT_CONFIG_INVALID', 'grantTypes'],
    ['authorization_code on a Machine app', { kind: 'Machine', grantTypes: ['authorization_code'] }, 400, 'CLIENT_CONFIG_INVALID', 'grantTypes'],
    ['an unknown grant type', { grantTypes: ['password'] }, 400, 'VALIDATION_FAILED', 'grantTypes'],
    ['no grant type', { grantTypes: [] }, 400, 'VALIDATION_FAILED', 'grantTypes'],
    ['auth none on a Web app', { tokenEndpointAuthMethod: 'none' }, 400, 'CLIENT_CONFIG_INVALID', 'tokenEndpointAuthMethod'],
    ['auth none on a Machine app', { kind: 'Machine', tokenEndpointAuthMethod: 'none' }, 400, 'CLIENT_CONFIG_INVALID', 'tokenEndpointAuthMethod'],
    ['a secret method on a Spa', { kind: 'Spa', tokenEndpointAuthMethod: 'client_secret_basic' }, 400, 'CLIENT_CONFIG_INVALID', 'tokenEndpointAuthMethod'],
    ['PKCE off for a Native app', { kind: 'Native', pkceRequired: false }, 400, 'CLIENT_CONFIG_INVALID', 'pkceRequired'],
    ['an unknown kind', { kind: 'Desktop' }, 400, 'VALIDATION_FAILED', 'kind'],
    ['an unknown environment', { environment: 'Staging' }, 400, 'VALIDATION_FAILED', 'environment'],
    ['a name over 200', { name: 'x'.repeat(201) }, 400, 'VALIDATION_FAILED', 'name'],
    ['pkceRequired a string', { pkceRequired: 'yes' }, 400, 'VALIDATION_FAILED', 'pkceRequired'],
    ['an unknown field', { secret: 'mine' }, 400, 'VALIDATION_FAILED', undefined],
    ['an unknown app group', { appGroupId: '00000000-0000-4000-8000-000000000000' }, 400, 'VALIDATION_FAILED', 'appGroupId'],
  ];
  it.each(bad)('refuses %s on create (and on update), storing nothing', async (_label, body, status, code, field) => {
    const before = await aerie.sql('select count(*)::int as n from apps.applications');
    const res = await create(body);
    expect([res.status, res.body.error]).toEqual([status, code]);
    if (field) expect(String(res.body.field)).toContain(field);
    expect(await aerie.sql('select count(*)::int as n from apps.applications')).toEqual(before);
    const { kind, environment, appGroupId, ...config } = body;
    if (kind === undefined && environment === undefined && appGroupId === undefined) {
      const { body: app } = await create({});
      const put = await aerie.request('PUT', `${BASE('acme')}/${app.id}`, { token: acme.owner, body: config });
      expect([put.status, put.body.error]).toEqual([status, code]);
    }
  });

  it('a Member without the scopes gets 403 with required; a non-member 404', async () => {
    const { body: app } = await create({});
    const cases: Array<[string, string, string, unknown?]> = [
      ['GET', BASE('acme'), 'org.application.list'],
      ['GET', `${BASE('acme')}/${app.id}`, 'org.application.read'],
      ['POST', BASE('acme'), 'org.application.create', { appGroupId: groupId, name: 'x', kind: 'Web', environment: 'Development' }],
      ['PUT', `${BASE('acme')}/${app.id}`, 'org.application.update', { name: 'x' }],
      ['PATCH', `${BASE('acme')}/${app.id}/status`, 'org.application.status', { status: 'disabled' }],
      ['POST', `${BASE('acme')}/${app.id}/rotate-secret`, 'org.application.rotate_secret'],
      ['DELETE', `${BASE('acme')}/${app.id}`, 'org.application.delete'],
    ];
    for (const [method, path, required, body] of cases) {
      const res = await aerie.request(method, path, { token: member, body });
      expect([method, path, res.status, res.body.error, res.body.required]).toEqual([method, path, 403, 'PERMISSION_DENIED', required]);
      const out = await aerie.request(method, path, { token: outsider, body });
      expect([method, path, out.status]).toEqual([method, path, 404]);
    }
  });

  it("answers 404 for another organization's application ids and refuses its group ids (nothing changes)", async () => {
    const theirs = await createGroup(aerie, globex, { name: 'Globex' });
    const app = theirs.application;
    const cases: Array<[string, string, unknown?]> = [
      ['GET', `${BASE('acme')}/${app.id}`], ['PUT', `${BASE('acme')}/${app.id}`, { name: 'hijack' }],
      ['PATCH', `${BASE('acme')}/${app.id}/status`, { status: 'disabled' }], ['POST', `${BASE('acme')}/${app.id}/rotate-secret`], ['DELETE', `${BASE('acme')}/${app.id}`],
    ];
    for (const [method, path, body] of cases) {
      const res = await aerie.request(method, path, { token: acme.owner, body });
      expect([method, path, res.status, res.body.error]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    const [row] = await aerie.sql('select name, status, secret_hash from apps.applications where id = ?', [app.id]);
    expect(row).toEqual({ name: 'Globex', status: 'active', secret_hash: sha256(app.clientSecret) });
    const intoTheirs = await create({ appGroupId: theirs.id });
    expect([intoTheirs.status, intoTheirs.body.field]).toEqual([400, 'appGroupId']);
    const list = await aerie.request('GET', `${BASE('acme')}?appGroupId=${theirs.id}`, { token: acme.owner });
    expect(list.body.applications).toEqual([]);
    const all = await aerie.request('GET', BASE('acme'), { token: acme.owner });
    expect(all.body.applications.map((a: any) => a.id)).not.toContain(app.id);
  });
});

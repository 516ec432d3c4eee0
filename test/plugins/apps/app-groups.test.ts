import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { coreRefs, type DomainEvent, type EventBus } from '../../../core/index.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership, createGroup } from './helpers.ts';

const BASE = (slug: string) => `/api/org/${slug}/app-groups`;
const LONG = (n: number) => 'x'.repeat(n);

describe('apps: app groups (/api/org/{slug}/app-groups)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let admin: string;
  let member: string;
  let outsider: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    admin = await addMembership(aerie, acme, 'admin@acme.test', 'Admin');
    member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
    outsider = await aerie.signIn('nobody@else.test');
  });
  afterAll(() => aerie?.close());

  it('creates a group with its first application (Web, Development) in one transaction, audited and evented', async () => {
    const events: DomainEvent[] = [];
    const s = aerie.kernel.container.resolve<EventBus>(coreRefs.events.id).on('org.app_group.*').subscribe((e) => events.push(e));
    const res = await aerie.request('POST', BASE('acme'), { token: acme.owner, body: { name: 'Shop', description: 'The shop', iconUrl: 'https://cdn.acme.test/i.png', brandColor: '#12abEF' } });
    s.unsubscribe();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { application, ...group } = res.body;
    expect(group).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), publicKey: expect.stringMatching(/^appgroup_[A-Za-z0-9_-]{22}$/), name: 'Shop', description: 'The shop',
      iconUrl: 'https://cdn.acme.test/i.png', brandColor: '#12abEF', monetizationEnabled: false, passkeyRpId: null, serviceModel: null, field: null,
      branding: { primaryColor: null, backgroundColor: null, heroTitle: null, heroSubtitle: null, passkeyEnabled: true, magicLinkEnabled: true, aerieAccountEnabled: false, socialProviders: [] },
      createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    expect(application).toMatchObject({
      appGroupId: group.id, name: 'Shop', kind: 'Web', environment: 'Development', status: 'active', clientKey: expect.stringMatching(/^client_/),
      confidential: true, tokenEndpointAuthMethod: 'client_secret_basic', pkceRequired: true, grantTypes: ['authorization_code', 'refresh_token'],
      clientSecret: expect.stringMatching(/^secret_/),
    });
    const [row] = await aerie.sql('select org_id, monetization_enabled from apps.app_groups where id = ?', [group.id]);
    expect(row).toEqual({ org_id: acme.id, monetization_enabled: false });
    const apps = await aerie.sql('select app_group_id, kind, environment from apps.applications where org_id = ? and app_group_id = ?', [acme.id, group.id]);
    expect(apps).toEqual([{ app_group_id: group.id, kind: 'Web', environment: 'Development' }]);
    const audit = await auditEvents(aerie, acme, 'org.app_group.created', 'org.application.created');
    expect(audit.map((e) => e.eventType)).toEqual(['org.app_group.created', 'org.application.created']);
    expect(audit[0].businessData).toMatchObject({ appGroupId: group.id, name: 'Shop', monetizationEnabled: false });
    expect(JSON.stringify(audit)).not.toContain(application.clientSecret);
    expect(events).toEqual([{ type: 'org.app_group.created', orgId: acme.id, payload: { orgId: acme.id, appGroupId: group.id, applicationId: application.id } }]);
  });

  it('gives every group its own public key', async () => {
    const a = await createGroup(aerie, acme, { name: 'A' });
    const b = await createGroup(aerie, acme, { name: 'B' });
    expect(a.publicKey).not.toBe(b.publicKey);
  });

  it('lists, reads and updates (only the members sent change; null clears), audited', async () => {
    const g = await createGroup(aerie, acme, { name: 'Portal', description: 'old' });
    const list = await aerie.request('GET', BASE('acme'), { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.appGroups.map((x: any) => x.id)).toContain(g.id);
    const one = await aerie.request('GET', `${BASE('acme')}/${g.id}`, { token: admin });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(list.body.appGroups.find((x: any) => x.id === g.id));
    const put = await aerie.request('PUT', `${BASE('acme')}/${g.id}`, { token: admin, body: { name: 'Portal 2', description: null, brandColor: '#000000' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Portal 2', description: null, brandColor: '#000000', iconUrl: null });
    const [updated] = await auditEvents(aerie, acme, 'org.app_group.updated');
    expect(updated.businessData).toMatchObject({ appGroupId: g.id, name: 'Portal 2', changed: ['name', 'description', 'brandColor'] });
  });

  it('deletes a group and its applications, audited', async () => {
    const g = await createGroup(aerie, acme, { name: 'Doomed' });
    const extra = await aerie.request('POST', `/api/org/acme/applications`, { token: acme.owner, body: { appGroupId: g.id, name: 'CLI', kind: 'Native', environment: 'Production' } });
    expect(extra.status).toBe(201);
    const res = await aerie.request('DELETE', `${BASE('acme')}/${g.id}`, { token: acme.owner });
    expect(res.status).toBe(204);
    expect(await aerie.sql('select id from apps.applications where app_group_id = ?', [g.id])).toEqual([]);
    expect(await aerie.sql('select id from apps.app_groups where id = ?', [g.id])).toEqual([]);
    const deleted = await auditEvents(aerie, acme, 'org.app_group.deleted');
    expect(deleted.at(-1)!.businessData).toMatchObject({ appGroupId: g.id, applicationIds: expect.arrayContaining([g.application.id, extra.body.id]) });
    const appsDeleted = (await auditEvents(aerie, acme, 'org.application.deleted')).map((e) => e.businessData.applicationId);
    expect(appsDeleted).toEqual(expect.arrayContaining([g.application.id, extra.body.id]));
    expect((await aerie.request('GET', `${BASE('acme')}/${g.id}`, { token: acme.owner })).status).toBe(404);
    expect((await aerie.request('DELETE', `${BASE('acme')}/${g.id}`, { token: acme.owner })).status).toBe(404);
  });

  it('monetizationEnabled: stored, default false; true only for the Owner (403 PERMISSION_DENIED)', async () => {
    const byAdmin = await aerie.request('POST', BASE('acme'), { token: admin, body: { name: 'Paid', monetizationEnabled: true } });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.error).toBe('PERMISSION_DENIED');
    const g = await createGroup(aerie, acme, { name: 'Paid' }, admin);
    expect(g.monetizationEnabled).toBe(false);
    const put = await aerie.request('PUT', `${BASE('acme')}/${g.id}`, { token: admin, body: { monetizationEnabled: true } });
    expect(put.status).toBe(403);
    expect(put.body.error).toBe('PERMISSION_DENIED');
    const off = await aerie.request('PUT', `${BASE('acme')}/${g.id}`, { token: admin, body: { monetizationEnabled: false } });
    expect(off.status).toBe(200);
    const owner = await aerie.request('PUT', `${BASE('acme')}/${g.id}`, { token: acme.owner, body: { monetizationEnabled: true } });
    expect(owner.status).toBe(200);
    expect(owner.body.monetizationEnabled).toBe(true);
    const [row] = await aerie.sql('select monetization_enabled from apps.app_groups where id = ?', [g.id]);
    expect(row.monetization_enabled).toBe(true);
    const created = await aerie.request('POST', BASE('acme'), { token: acme.owner, body: { name: 'Paid 2', monetizationEnabled: true } });
    expect(created.status).toBe(201);
    expect(created.body.monetizationEnabled).toBe(true);
  });

  const bad: Array<[string, Record<string, unknown>, string | undefined]> = [
    ['missing name', {}, undefined],
    ['name of the wrong type', { name: 42 }, 'name'],
    ['blank name', { name: '   ' }, 'name'],
    ['name over 200', { name: LONG(201) }, 'name'],
    ['description over 1000', { name: 'n', description: LONG(1001) }, 'description'],
    ['iconUrl over 500', { name: 'n', iconUrl: `https://x.test/${LONG(490)}` }, 'iconUrl'],
    ['iconUrl not https', { name: 'n', iconUrl: 'http://x.test/i.png' }, 'iconUrl'],
    ['iconUrl relative', { name: 'n', iconUrl: '/i.png' }, 'iconUrl'],
    ['brandColor without #', { name: 'n', brandColor: '112233' }, 'brandColor'],
    ['brandColor short', { name: 'n', brandColor: '#123' }, 'brandColor'],
    ['brandColor not hex', { name: 'n', brandColor: '#12345G' }, 'brandColor'],
    ['brandColor a name', { name: 'n', brandColor: 'red' }, 'brandColor'],
    ['monetizationEnabled a string', { name: 'n', monetizationEnabled: 'true' }, 'monetizationEnabled'],
    ['an unknown field', { name: 'n', colour: '#000000' }, undefined],
  ];
  it.each(bad)('refuses %s (400 VALIDATION_FAILED, nothing stored)', async (_label, body, field) => {
    const before = await aerie.sql('select count(*)::int as n from apps.app_groups');
    const res = await aerie.request('POST', BASE('acme'), { token: acme.owner, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    if (field) expect(String(res.body.field)).toContain(field);
    expect(await aerie.sql('select count(*)::int as n from apps.app_groups')).toEqual(before);
    if (Object.keys(body).length > 1 || 'name' in body) {
      const g = await createGroup(aerie, acme, { name: 'Target' });
      const { name: _n, ...rest } = body;
      if (Object.keys(rest).length > 0) expect((await aerie.request('PUT', `${BASE('acme')}/${g.id}`, { token: acme.owner, body: rest })).status).toBe(400);
    }
  });

  it('a Member without the scopes gets 403 with required; a non-member 404', async () => {
    const g = await createGroup(aerie, acme, { name: 'Guarded' });
    const cases: Array<[string, string, string, unknown?]> = [
      ['GET', BASE('acme'), 'org.app_group.list'],
      ['GET', `${BASE('acme')}/${g.id}`, 'org.app_group.read'],
      ['POST', BASE('acme'), 'org.app_group.create', { name: 'x' }],
      ['PUT', `${BASE('acme')}/${g.id}`, 'org.app_group.update', { name: 'x' }],
      ['DELETE', `${BASE('acme')}/${g.id}`, 'org.app_group.delete'],
    ];
    for (const [method, path, required, body] of cases) {
      const res = await aerie.request(method, path, { token: member, body });
      expect([method, path, res.status, res.body.error, res.body.required]).toEqual([method, path, 403, 'PERMISSION_DENIED', required]);
      const out = await aerie.request(method, path, { token: outsider, body });
      expect([method, path, out.status]).toEqual([method, path, 404]);
    }
  });

  it("answers the keys plugin's app-group directory: a key may be scoped to one of this organization's groups only", async () => {
    const ours = await createGroup(aerie, acme, { name: 'Keyed' });
    const theirs = await createGroup(aerie, globex, { name: 'Not yours' });
    const ok = await aerie.request('POST', '/api/org/acme/settings/keys/api-keys', { token: acme.owner, body: { name: 'k', appGroupId: ours.id } });
    expect([ok.status, ok.body.appGroupId]).toEqual([201, ours.id]);
    for (const appGroupId of [theirs.id, 'ag-unknown']) {
      const res = await aerie.request('POST', '/api/org/acme/settings/keys/api-keys', { token: acme.owner, body: { name: 'k', appGroupId } });
      expect([res.status, res.body.error, res.body.field]).toEqual([400, 'APP_GROUP_NOT_FOUND', 'appGroupId']);
    }
  });

  it("answers 404 for another organization's group ids (nothing changes)", async () => {
    const theirs = await createGroup(aerie, globex, { name: 'Globex app' });
    for (const [method, body] of [['GET'], ['PUT', { name: 'hijack' }], ['DELETE']] as Array<[string, unknown?]>) {
      const res = await aerie.request(method, `${BASE('acme')}/${theirs.id}`, { token: acme.owner, body });
      expect([method, res.status, res.body.error]).toEqual([method, 404, 'NOT_FOUND']);
    }
    expect((await aerie.request('GET', BASE('acme'), { token: acme.owner })).body.appGroups.map((x: any) => x.id)).not.toContain(theirs.id);
    const [row] = await aerie.sql('select name from apps.app_groups where id = ?', [theirs.id]);
    expect(row.name).toBe('Globex app');
    expect((await aerie.request('GET', `${BASE('acme')}/not-a-uuid`, { token: acme.owner })).status).toBe(404);
  });
});

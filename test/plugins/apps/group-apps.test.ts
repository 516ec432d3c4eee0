import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership, createGroup } from './helpers.ts';

const APPS = (slug: string, groupId: string) => `/api/org/${slug}/app-groups/${groupId}/apps`;

describe('apps: POST /api/org/{slug}/app-groups/{groupId}/apps', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let member: string;
  let groupId: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
    groupId = (await createGroup(aerie, acme, { name: 'Shop' })).id;
  });
  afterAll(() => aerie?.close());

  const count = async () => (await aerie.sql('select count(*)::int as n from apps.applications'))[0].n as number;

  it('creates an application in the group from the path: 201, secret shown once, audited', async () => {
    const res = await aerie.request('POST', APPS('acme', groupId), { token: acme.owner, body: { name: 'API', kind: 'Machine', environment: 'Production' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ appGroupId: groupId, name: 'API', kind: 'Machine', grantTypes: ['client_credentials'], clientSecret: expect.stringMatching(/^secret_/) });
    const [row] = await aerie.sql('select org_id, app_group_id from apps.applications where id = ?', [res.body.id]);
    expect(row).toEqual({ org_id: acme.id, app_group_id: groupId });
    const [event] = (await auditEvents(aerie, acme, 'org.application.created')).filter((e) => e.businessData.applicationId === res.body.id);
    expect(event.businessData).toMatchObject({ appGroupId: groupId, kind: 'Machine' });
    const spa = await aerie.request('POST', APPS('acme', groupId), { token: acme.owner, body: { name: 'Web UI', kind: 'Spa', environment: 'Development' } });
    expect([spa.status, spa.body.clientSecret, spa.body.tokenEndpointAuthMethod]).toEqual([201, null, 'none']);
  });

  it('applies the client configuration rules and refuses appGroupId in the body, storing nothing', async () => {
    const before = await count();
    const cases: Array<[Record<string, unknown>, string, string | undefined]> = [
      [{ name: 'x', kind: 'Web', environment: 'Production', grantTypes: ['client_credentials'] }, 'CLIENT_CONFIG_INVALID', 'grantTypes'],
      [{ name: 'x', kind: 'Web', environment: 'Production', appGroupId: groupId }, 'VALIDATION_FAILED', undefined],
      [{ name: 'x', kind: 'Web' }, 'VALIDATION_FAILED', 'environment'],
    ];
    for (const [body, code, field] of cases) {
      const res = await aerie.request('POST', APPS('acme', groupId), { token: acme.owner, body });
      expect([res.status, res.body.error]).toEqual([400, code]);
      if (field) expect(String(res.body.field)).toContain(field);
    }
    expect(await count()).toBe(before);
  });

  it("answers 404 for another organization's group, an unknown group and a non-uuid id; 403 without the scope", async () => {
    const theirs = await createGroup(aerie, globex, { name: 'Globex' });
    const before = await count();
    const body = { name: 'x', kind: 'Web', environment: 'Production' };
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await aerie.request('POST', APPS('acme', id), { token: acme.owner, body });
      expect([id, res.status, res.body.error]).toEqual([id, 404, 'NOT_FOUND']);
    }
    const denied = await aerie.request('POST', APPS('acme', groupId), { token: member, body });
    expect([denied.status, denied.body.required]).toEqual([403, 'org.application.create']);
    expect(await count()).toBe(before);
  });
});

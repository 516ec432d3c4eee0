import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { createKey, tokenFor } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

/** Machine tokens on the apps routes: the scope decides; Owner-only rules treat a token as a member. */
describe('apps: machine tokens', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let token: string;
  let keyId: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    const key = await createKey(aerie, acme, { scopes: ['org.app_group.create', 'org.app_group.update', 'org.application.list'] });
    keyId = key.id;
    token = await tokenFor(aerie, acme, key.value);
  });
  afterAll(() => aerie?.close());

  it('creates a group with a token holding org.app_group.create, audited with the machine actor', async () => {
    const res = await aerie.request('POST', '/api/org/acme/app-groups', { token, body: { name: 'Automated' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [row] = await aerie.sql('select created_by from apps.app_groups where id = ?', [res.body.id]);
    expect(row.created_by).toBeNull();
    const [event] = (await auditEvents(aerie, acme, 'org.app_group.created')).filter((e) => e.businessData.appGroupId === res.body.id);
    expect(event).toMatchObject({ actorType: 'machine', actorId: keyId });
    const list = await aerie.request('GET', `/api/org/acme/applications?appGroupId=${res.body.id}`, { token });
    expect(list.body.applications.map((a: any) => a.id)).toEqual([res.body.application.id]);
  });

  it('uploads an icon with a token holding org.app_group.update, audited with the machine actor', async () => {
    const group = await aerie.request('POST', '/api/org/acme/app-groups', { token, body: { name: 'Iconic' } });
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const res = await fetch(`${aerie.url}/api/org/acme/app-groups/${group.body.id}/icon`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' }, body: new Uint8Array(png) });
    expect(res.status).toBe(200);
    const [event] = (await auditEvents(aerie, acme, 'org.app_group.icon_uploaded')).filter((e) => e.businessData.appGroupId === group.body.id);
    expect(event).toMatchObject({ actorType: 'machine', actorId: keyId });
  });

  it('refuses monetizationEnabled: true from a token (403 PERMISSION_DENIED), and scopes it does not hold (403 with required)', async () => {
    const paid = await aerie.request('POST', '/api/org/acme/app-groups', { token, body: { name: 'Paid', monetizationEnabled: true } });
    expect([paid.status, paid.body.error]).toEqual([403, 'PERMISSION_DENIED']);
    const read = await aerie.request('GET', '/api/org/acme/app-groups', { token });
    expect([read.status, read.body.required]).toEqual([403, 'org.app_group.list']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { createGroup } from './helpers.ts';

const BASE = '/api/org/acme/applications';
const SP = { entityId: 'https://shop.acme.test/saml/metadata', acsUrl: 'https://shop.acme.test/saml/acs' };

/** An application's SAML service-provider registration (`saml`). */
describe('apps: SAML service provider of an application', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let groupId: string;

  const create = (body: Record<string, unknown>) =>
    aerie.request('POST', BASE, { token: acme.owner, body: { appGroupId: groupId, name: 'App', kind: 'Web', environment: 'Production', ...body } });

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    groupId = (await createGroup(aerie, acme, { name: 'Shop' })).id;
  });
  afterAll(() => aerie?.close());

  it('stores, answers, changes and clears it, audited', async () => {
    const res = await create({ saml: SP });
    expect([res.status, res.body.saml]).toEqual([201, SP]);
    const [row] = await aerie.sql('select saml from apps.applications where id = ?', [res.body.id]);
    expect(row.saml).toEqual(SP);
    const got = await aerie.request('GET', `${BASE}/${res.body.id}`, { token: acme.owner });
    expect(got.body.saml).toEqual(SP);
    const moved = { ...SP, acsUrl: 'https://shop.acme.test/saml/acs2' };
    const put = await aerie.request('PUT', `${BASE}/${res.body.id}`, { token: acme.owner, body: { saml: moved } });
    expect([put.status, put.body.saml]).toEqual([200, moved]);
    const renamed = await aerie.request('PUT', `${BASE}/${res.body.id}`, { token: acme.owner, body: { name: 'Kept' } });
    expect(renamed.body.saml).toEqual(moved);
    const cleared = await aerie.request('PUT', `${BASE}/${res.body.id}`, { token: acme.owner, body: { saml: null } });
    expect([cleared.status, cleared.body.saml]).toEqual([200, null]);
    const audit = (await auditEvents(aerie, acme)).filter((e) => e.businessData.applicationId === res.body.id).map((e) => e.businessData.saml);
    expect(audit).toEqual([SP, moved, moved, null]);
    const none = await create({});
    expect(none.body.saml).toBeNull();
  });

  const refused: Array<[string, unknown, string, string]> = [
    ['an http entity id', { ...SP, entityId: 'http://shop.acme.test/saml' }, 'CLIENT_CONFIG_INVALID', 'saml.entityId'],
    ['a URN entity id', { ...SP, entityId: 'urn:acme:shop' }, 'CLIENT_CONFIG_INVALID', 'saml.entityId'],
    ['a relative ACS URL', { ...SP, acsUrl: '/saml/acs' }, 'CLIENT_CONFIG_INVALID', 'saml.acsUrl'],
    ['an ACS URL over 500 characters', { ...SP, acsUrl: `https://shop.acme.test/${'a'.repeat(480)}` }, 'CLIENT_CONFIG_INVALID', 'saml.acsUrl'],
    ['an ACS URL with user information', { ...SP, acsUrl: 'https://me:pw@shop.acme.test/acs' }, 'CLIENT_CONFIG_INVALID', 'saml.acsUrl'],
    ['a missing ACS URL', { entityId: SP.entityId }, 'VALIDATION_FAILED', 'saml.acsUrl'],
    ['an unknown member', { ...SP, certificate: 'x' }, 'VALIDATION_FAILED', 'saml.certificate'],
    ['a string', 'https://shop.acme.test', 'VALIDATION_FAILED', 'saml'],
  ];
  it.each(refused)('refuses %s on create and update, writing nothing', async (_label, saml, code, field) => {
    const { body: app } = await create({ saml: SP });
    const before = await aerie.sql('select count(*)::int as n from apps.applications');
    const events = (await auditEvents(aerie, acme)).length;
    const res = await create({ saml });
    expect([res.status, res.body.error, res.body.field]).toEqual([400, code, field]);
    const put = await aerie.request('PUT', `${BASE}/${app.id}`, { token: acme.owner, body: { saml } });
    expect([put.status, put.body.error, put.body.field]).toEqual([400, code, field]);
    expect(await aerie.sql('select count(*)::int as n from apps.applications')).toEqual(before);
    expect((await auditEvents(aerie, acme)).length).toBe(events);
    const [row] = await aerie.sql('select saml from apps.applications where id = ?', [app.id]);
    expect(row.saml).toEqual(SP);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { createGroup } from './helpers.ts';

const BASE = '/api/org/acme/app-groups';

/** Hosted-login branding, passkey RP ID, service model and field of an app group. */
describe('apps: app group branding and product fields', () => {
  let aerie: TestAerie;
  let acme: TestOrg;

  beforeAll(async () => {
    aerie = await TestAerie.start({ overrides: { baseUrl: 'https://id.aerie.test' } });
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
  });
  afterAll(() => aerie?.close());

  it('stores and answers them; a branding sent replaces the old one, members left out get defaults', async () => {
    const branding = { primaryColor: '#112233', backgroundColor: '#fFfFfF', heroTitle: 'Welcome back', heroSubtitle: 'Sign in to Shop', passkeyEnabled: false, magicLinkEnabled: true, socialProviders: ['google', 'apple'] };
    const g = await createGroup(aerie, acme, { name: 'Shop', branding, passkeyRpId: 'id.aerie.test', serviceModel: 'SaaS', field: 'Commerce' });
    expect(g).toMatchObject({ branding, passkeyRpId: 'id.aerie.test', serviceModel: 'SaaS', field: 'Commerce' });
    const [row] = await aerie.sql('select branding, passkey_rp_id, service_model, field from apps.app_groups where id = ?', [g.id]);
    expect(row).toEqual({ branding: { ...branding, aerieAccountEnabled: false }, passkey_rp_id: 'id.aerie.test', service_model: 'SaaS', field: 'Commerce' });
    const put = await aerie.request('PUT', `${BASE}/${g.id}`, { token: acme.owner, body: { branding: { heroTitle: 'Hi' }, serviceModel: null, field: null } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({
      branding: { primaryColor: null, backgroundColor: null, heroTitle: 'Hi', heroSubtitle: null, passkeyEnabled: true, magicLinkEnabled: true, socialProviders: [] },
      passkeyRpId: 'id.aerie.test', serviceModel: null, field: null,
    });
    const [updated] = (await auditEvents(aerie, acme, 'org.app_group.updated')).filter((e) => e.businessData.appGroupId === g.id);
    expect(updated.businessData).toMatchObject({ changed: ['branding', 'serviceModel', 'field'], branding: put.body.branding, serviceModel: null });
  });

  it('accepts an RP ID under a redirect host of the group only once an application has that redirect URI', async () => {
    const g = await createGroup(aerie, acme, { name: 'Portal' });
    const early = await aerie.request('PUT', `${BASE}/${g.id}`, { token: acme.owner, body: { passkeyRpId: 'example.com' } });
    expect([early.status, early.body.error, early.body.field]).toEqual([400, 'RP_ID_INVALID', 'passkeyRpId']);
    const app = await aerie.request('POST', `${BASE}/${g.id}/apps`, { token: acme.owner, body: { name: 'Web', kind: 'Web', environment: 'Production', redirectUris: ['https://login.portal.example.com/cb'] } });
    expect(app.status).toBe(201);
    for (const rpId of ['login.portal.example.com', 'portal.example.com', 'example.com']) {
      const ok = await aerie.request('PUT', `${BASE}/${g.id}`, { token: acme.owner, body: { passkeyRpId: rpId } });
      expect([rpId, ok.status, ok.body.passkeyRpId]).toEqual([rpId, 200, rpId]);
    }
    const cleared = await aerie.request('PUT', `${BASE}/${g.id}`, { token: acme.owner, body: { passkeyRpId: null } });
    expect([cleared.status, cleared.body.passkeyRpId]).toEqual([200, null]);
  });

  it("answers 404 for another organization's group whatever the RP ID (no rule is checked against it)", async () => {
    const globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    const theirs = await createGroup(aerie, globex, { name: 'Globex' });
    const res = await aerie.request('PUT', `${BASE}/${theirs.id}`, { token: acme.owner, body: { passkeyRpId: 'evil.example' } });
    expect([res.status, res.body.error]).toEqual([404, 'NOT_FOUND']);
  });

  const refused: Array<[string, Record<string, unknown>, string, string]> = [
    ['a colour that is not #RRGGBB', { branding: { primaryColor: 'red' } }, 'VALIDATION_FAILED', 'branding.primaryColor'],
    ['a short colour', { branding: { backgroundColor: '#fff' } }, 'VALIDATION_FAILED', 'branding.backgroundColor'],
    ['a hero title over 80', { branding: { heroTitle: 'x'.repeat(81) } }, 'VALIDATION_FAILED', 'branding.heroTitle'],
    ['a hero subtitle over 200', { branding: { heroSubtitle: 'x'.repeat(201) } }, 'VALIDATION_FAILED', 'branding.heroSubtitle'],
    ['a hero title with a control character', { branding: { heroTitle: 'a\u0007b' } }, 'VALIDATION_FAILED', 'branding.heroTitle'],
    ['passkeyEnabled a string', { branding: { passkeyEnabled: 'yes' } }, 'VALIDATION_FAILED', 'branding.passkeyEnabled'],
    ['an unknown social provider', { branding: { socialProviders: ['facebook'] } }, 'VALIDATION_FAILED', 'branding.socialProviders.0'],
    ['a social provider twice', { branding: { socialProviders: ['google', 'google'] } }, 'VALIDATION_FAILED', 'branding.socialProviders'],
    ['an unknown branding member', { branding: { logo: 'x' } }, 'VALIDATION_FAILED', 'branding.logo'],
    ['an unknown service model', { serviceModel: 'IaaS' }, 'VALIDATION_FAILED', 'serviceModel'],
    ['a blank field', { field: ' ' }, 'VALIDATION_FAILED', 'field'],
    ['a field over 100', { field: 'x'.repeat(101) }, 'VALIDATION_FAILED', 'field'],
    ['an RP ID with a scheme', { passkeyRpId: 'https://id.aerie.test' }, 'VALIDATION_FAILED', 'passkeyRpId'],
    ['an RP ID in capitals', { passkeyRpId: 'ID.AERIE.TEST' }, 'VALIDATION_FAILED', 'passkeyRpId'],
    ['an RP ID that is a public suffix', { passkeyRpId: 'com' }, 'RP_ID_INVALID', 'passkeyRpId'],
    ['an RP ID of another site', { passkeyRpId: 'evil.example' }, 'RP_ID_INVALID', 'passkeyRpId'],
    ['the parent of the service host', { passkeyRpId: 'aerie.test' }, 'RP_ID_INVALID', 'passkeyRpId'],
  ];
  it.each(refused)('refuses %s with 400 on create and update, writing nothing', async (_label, body, code, field) => {
    const g = await createGroup(aerie, acme, { name: 'Fixed' });
    const groups = await aerie.sql('select count(*)::int as n from apps.app_groups');
    const audit = (await auditEvents(aerie, acme)).length;
    const created = await aerie.request('POST', BASE, { token: acme.owner, body: { name: 'New', ...body } });
    expect([created.status, created.body.error, created.body.field]).toEqual([400, code, field]);
    const put = await aerie.request('PUT', `${BASE}/${g.id}`, { token: acme.owner, body });
    expect([put.status, put.body.error, put.body.field]).toEqual([400, code, field]);
    expect(await aerie.sql('select count(*)::int as n from apps.app_groups')).toEqual(groups);
    expect((await auditEvents(aerie, acme)).length).toBe(audit);
    const [row] = await aerie.sql('select branding, passkey_rp_id, service_model, field from apps.app_groups where id = ?', [g.id]);
    expect(row).toEqual({ branding: expect.objectContaining({ socialProviders: [] }), passkey_rp_id: null, service_model: null, field: null });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** The request sequences identity providers send (Okta's and Entra ID's validators), as they send them. */
describe('SCIM 2.0 provisioning of Users', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let token: string;
  let globexToken: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    token = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'IdP' } })).body.value;
    globexToken = (await aerie.request('POST', '/api/org/globex/settings/scim/tokens', { token: globex.owner, body: { name: 'IdP' } })).body.value;
  });
  afterAll(() => aerie?.close());

  const send = (method: string, path: string, body?: unknown, t = token, slug = 'acme') =>
    aerie.request(method, `/scim/v2/${slug}${path}`, { token: t, body, headers: body === undefined ? {} : { 'content-type': 'application/scim+json' } });
  const membership = async (email: string) => (await aerie.sql(
    "select m.id, m.status, m.role from orgs.memberships m join accounts.accounts a on a.id = m.account_id where a.email = ? and m.org_id = (select id from orgs.organizations where slug = 'acme')", [email]))[0];

  it('creates a User (Okta: POST with name, emails, externalId): an account, a Member membership, attributes, audited', async () => {
    const res = await send('POST', '/Users', {
      schemas: [USER], userName: 'Nina@Acme.test', name: { givenName: 'Nina', familyName: 'Ng' }, externalId: '00u1',
      emails: [{ primary: true, value: 'Nina@Acme.test', type: 'work' }], displayName: 'Nina Ng', locale: 'en-US', active: true, groups: [],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(res.headers.get('location')).toBe(res.body.meta.location);
    expect(res.body).toMatchObject({ schemas: [USER], userName: 'nina@acme.test', externalId: '00u1', name: { givenName: 'Nina', familyName: 'Ng' }, displayName: 'Nina Ng', active: true });
    expect(await membership('nina@acme.test')).toEqual({ id: res.body.id, status: 'active', role: 'Member' });
    const [acct] = await aerie.sql("select email_verified_at from accounts.accounts where email = 'nina@acme.test'");
    expect(acct.email_verified_at).not.toBeNull();
    const members = await aerie.request('GET', '/api/org/acme/members', { token: acme.owner });
    expect(JSON.stringify(members.body)).toContain('nina@acme.test');
    const [event] = await auditEvents(aerie, acme, 'org.member.provisioned');
    expect(event).toMatchObject({ actorType: 'system', businessData: { connectedIdId: res.body.id, via: 'scim', active: true } });
    // Okta then looks the user up by userName and by id.
    const found = await send('GET', `/Users?filter=${encodeURIComponent('userName eq "nina@acme.test"')}&startIndex=1&count=100`);
    expect(found.body.Resources).toEqual([res.body]);
    expect((await send('GET', `/Users?filter=${encodeURIComponent('externalId eq "00u1"')}`)).body.totalResults).toBe(1);
    expect((await send('GET', `/Users/${res.body.id}`)).body).toEqual(res.body);
  });

  it('refuses a second User with the same userName or externalId (409 uniqueness), and bad bodies (400)', async () => {
    const dup = await send('POST', '/Users', { schemas: [USER], userName: 'NINA@acme.test' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    const ext = await send('POST', '/Users', { schemas: [USER], userName: 'other@acme.test', externalId: '00u1' });
    expect(ext.status).toBe(409);
    expect(await membership('other@acme.test')).toBeUndefined(); // nothing written
    for (const body of [{ schemas: [USER] }, { userName: 'not an email' }, { userName: 'x@y.test', active: 'maybe' }, { userName: 'x@y.test', displayName: 'a\u202Eb' }, [1]]) {
      const res = await send('POST', '/Users', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.scimType).toMatch(/invalidValue|invalidSyntax/);
    }
  });

  it('replaces a User (PUT): kept attributes absent from the body are cleared; userName cannot change', async () => {
    const { id } = await membership('nina@acme.test');
    const res = await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'nina@acme.test', displayName: 'Nina N.', active: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'Nina N.', active: true });
    expect(res.body.name).toBeUndefined();
    expect(res.body.externalId).toBeUndefined();
    const moved = await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'nina2@acme.test' });
    expect(moved.status).toBe(400);
    expect(moved.body.scimType).toBe('mutability');
  });

  it('patches the way Entra ID does: "Replace" with "False" suspends, pathless dotted keys re-activate and rename', async () => {
    const { id } = await membership('nina@acme.test');
    const off = await send('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await membership('nina@acme.test')).status).toBe('suspended');
    const on = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true, 'name.givenName': 'Nine', displayName: 'Nine Ng', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department': 'R&D' } }],
    });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({ active: true, name: { givenName: 'Nine' }, displayName: 'Nine Ng' });
    expect((await membership('nina@acme.test')).status).toBe('active');
    const add = await send('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'externalId', value: '00u9' }, { op: 'Add', path: 'title', value: 'Engineer' }, { op: 'remove', path: 'name.givenName' }] });
    expect(add.body).toMatchObject({ externalId: '00u9' });
    expect(add.body.name).toBeUndefined();
    const types = (await auditEvents(aerie, acme)).filter((e) => e.businessData.connectedIdId === id).map((e) => e.eventType);
    // A PATCH writes the User's whole resulting state, so the first one also stores the attributes the IdP had left to their defaults.
    expect(types).toEqual(['org.member.provisioned', 'org.scim_user.updated', 'org.member.suspended', 'org.scim_user.updated', 'org.member.reactivated', 'org.scim_user.updated']);
    for (const body of [{ Operations: [{ op: 'move', path: 'active', value: true }] }, { Operations: [] }, { Operations: [{ op: 'replace', path: 'userName', value: 'zz@acme.test' }] }, { Operations: [{ op: 'remove' }] }, { Operations: [{ op: 'replace', path: 'a b', value: 1 }] }]) {
      const res = await send('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('never deactivates or deletes the Owner; deletes (revokes) a User, who can be provisioned again under the same id', async () => {
    const owner = await membership('owner@acme.test');
    expect((await send('PATCH', `/Users/${owner.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] })).body.scimType).toBe('mutability');
    expect((await send('DELETE', `/Users/${owner.id}`)).status).toBe(400);
    expect((await membership('owner@acme.test')).status).toBe('active');
    const { id } = await membership('nina@acme.test');
    expect((await send('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await membership('nina@acme.test')).status).toBe('revoked');
    expect((await send('GET', `/Users/${id}`)).status).toBe(404);
    expect((await send('DELETE', `/Users/${id}`)).status).toBe(404);
    const again = await send('POST', '/Users', { schemas: [USER], userName: 'nina@acme.test', name: { givenName: 'Nina' } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id, active: true, name: { givenName: 'Nina' } });
    expect(again.body.externalId).toBeUndefined(); // a new provisioning starts from the body alone
  });

  it("cannot touch another organization's Users through its own path", async () => {
    const { id } = await membership('nina@acme.test');
    expect((await send('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }, globexToken, 'globex')).status).toBe(404);
    expect((await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'nina@acme.test' }, globexToken, 'globex')).status).toBe(404);
    expect((await send('DELETE', `/Users/${id}`, undefined, globexToken, 'globex')).status).toBe(404);
    expect((await send('DELETE', `/Users/${id}`, undefined, globexToken, 'acme')).status).toBe(401);
    expect((await membership('nina@acme.test')).status).toBe('active');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

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
    // userName comes back as sent; the account's address (the work email) is lower-cased.
    expect(res.body).toMatchObject({ schemas: [USER], userName: 'Nina@Acme.test', externalId: '00u1', name: { givenName: 'Nina', familyName: 'Ng' }, displayName: 'Nina Ng', active: true });
    expect(res.body.emails).toEqual([{ value: 'nina@acme.test', type: 'work', primary: true }]);
    expect(await membership('nina@acme.test')).toEqual({ id: res.body.id, status: 'active', role: 'Member' });
    // A new address: acme's own account, federated to it and not verified for Aerie at large.
    const [acct] = await aerie.sql("select email_verified_at, federated_org_id from accounts.accounts where email = 'nina@acme.test'");
    expect(acct).toEqual({ email_verified_at: null, federated_org_id: acme.id });
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

  it('replaces a User (PUT): kept attributes absent from the body are cleared; userName is required and may change, and the work email of the organization\'s own account', async () => {
    const { id } = await membership('nina@acme.test');
    const res = await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'nina@acme.test', displayName: 'Nina N.', active: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userName: 'nina@acme.test', displayName: 'Nina N.', active: true });
    expect(res.body.name).toBeUndefined();
    expect(res.body.externalId).toBeUndefined();
    const before = (await send('GET', `/Users/${id}`)).body;
    const noName = await send('PUT', `/Users/${id}`, { schemas: [USER], displayName: 'Changed' });
    expect(noName.status).toBe(400);
    expect(noName.body).toEqual({ schemas: [ERROR], status: '400', scimType: 'invalidValue', detail: 'userName is required.' });
    // Nina is acme's own account (a new address): its directory may change her address, not to one another User has.
    const moved = await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'nina@acme.test', emails: [{ value: 'nina2@acme.test', type: 'work', primary: true }] });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.emails).toEqual([{ value: 'nina2@acme.test', type: 'work', primary: true }]);
    expect((await auditEvents(aerie, acme, 'org.scim_user.updated')).at(-1)!.businessData.changed).toContain('email');
    const back = await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'nina@acme.test', emails: [{ value: 'nina@acme.test', type: 'work', primary: true }] });
    expect(back.status).toBe(200);
    await aerie.signIn('taken@acme.test');
    const taken = await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'nina@acme.test', emails: [{ value: 'taken@acme.test', type: 'work', primary: true }] });
    expect(taken.status).toBe(409);
    expect(taken.body.scimType).toBe('uniqueness');
    expect((await send('GET', `/Users/${id}`)).body.emails).toEqual([{ value: 'nina@acme.test', type: 'work', primary: true }]);
    expect(await aerie.sql("select 1 from accounts.accounts where email = 'nina2@acme.test'")).toEqual([]);
    // userName is the SCIM identifier: it changes (the account's address stays), and the old one finds nobody.
    const renamed = await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'Nina.Ng', displayName: 'Nina N.', active: true });
    expect(renamed.body).toMatchObject({ userName: 'Nina.Ng', emails: [{ value: 'nina@acme.test', type: 'work', primary: true }] });
    expect((await send('GET', `/Users?filter=${encodeURIComponent('userName eq "nina.ng"')}`)).body.Resources.map((u: any) => u.id)).toEqual([id]);
    expect((await send('GET', `/Users?filter=${encodeURIComponent('userName eq "nina@acme.test"')}`)).body.totalResults).toBe(0);
    expect((await aerie.sql('select user_name from scim.user_attributes where membership_id = ?', [id]))[0].user_name).toBe('Nina.Ng');
    expect((await send('PUT', `/Users/${id}`, { schemas: [USER], userName: 'nina@acme.test', displayName: 'Nina N.', active: true })).status).toBe(200);
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
    // The PUTs that changed something (the address moved and back, two renames of the userName), then "False", the pathless PATCH, the add.
    expect(types).toEqual(['org.member.provisioned', 'org.scim_user.updated', 'org.scim_user.updated', 'org.scim_user.updated', 'org.scim_user.updated', 'org.scim_user.updated',
      'org.member.suspended', 'org.scim_user.updated', 'org.member.reactivated', 'org.scim_user.updated']);
    for (const body of [{ Operations: [{ op: 'move', path: 'active', value: true }] }, { Operations: [] }, { Operations: [{ op: 'remove', path: 'userName' }] }, { Operations: [{ op: 'remove' }] }, { Operations: [{ op: 'replace', path: 'a b', value: 1 }] }]) {
      const res = await send('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("keeps an Aerie account's address: emails[type eq \"work\"].value (Entra ID) set to the same address is accepted, to another refused with mutability", async () => {
    // ivy@acme.test has an Aerie account: provisioning invites her, and her address is hers alone to change.
    await aerie.signIn('ivy@acme.test');
    expect((await send('POST', '/Users', { schemas: [USER], userName: 'ivy@acme.test', displayName: 'Ivy Ng' })).status).toBe(201);
    const { id } = await membership('ivy@acme.test');
    const patch = (...Operations: unknown[]) => send('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations });
    const before = (await send('GET', `/Users/${id}`)).body;
    const eventsBefore = (await auditEvents(aerie, acme)).length;
    for (const op of ['replace', 'Replace', 'Add']) {
      const same = await patch({ op, path: 'emails[type eq "work"].value', value: 'IVY@acme.test' });
      expect(same.status, JSON.stringify(same.body)).toBe(200);
      expect(same.body).toEqual(before);
    }
    // Every User has its work element, so the filter always finds it; pathless, URN-qualified and whole-list forms too.
    expect((await patch({ op: 'replace', value: { 'emails[type eq "work"].value': 'ivy@acme.test', displayName: 'Ivy Ng' } })).status).toBe(200);
    expect((await patch({ op: 'replace', path: `${USER}:emails`, value: [{ value: 'ivy@acme.test', type: 'work', primary: true }, { value: 'ivy@home.test', type: 'home' }] })).status).toBe(200);
    const refusals = [
      [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'ivy.ng@acme.test' }],
      [{ op: 'Add', path: 'emails[type eq "work"].value', value: 'ivy.ng@acme.test' }],
      [{ op: 'replace', value: { 'emails[type eq "work"].value': 'ivy.ng@acme.test' } }],
      [{ op: 'replace', path: 'emails', value: [{ value: 'ivy.ng@acme.test', type: 'work', primary: true }] }],
      [{ op: 'replace', path: 'emails[primary eq true]', value: { value: 'ivy.ng@acme.test' } }],
      [{ op: 'remove', path: 'emails[type eq "work"]' }],
      [{ op: 'remove', path: 'emails' }],
      [{ op: 'replace', path: 'emails[value eq "ivy@acme.test"].primary', value: 'False' }],
      // One PATCH is applied whole or not at all: the rename before the refusal is not kept either.
      [{ op: 'replace', path: 'displayName', value: 'Renamed' }, { op: 'replace', path: 'emails[type eq "work"].value', value: 'ivy.ng@acme.test' }],
    ];
    for (const ops of refusals) {
      const res = await patch(...ops);
      expect(res.status, JSON.stringify(ops)).toBe(400);
      expect(res.body).toEqual({ schemas: [ERROR], status: '400', scimType: 'mutability', detail: expect.stringMatching(/work email/) });
    }
    // No element matches type "home": replace would create one (RFC 7644 §3.5.2.3), an email Aerie does not keep.
    const home = await patch({ op: 'replace', path: 'emails[type eq "home"].value', value: 'ivy@home.test' });
    expect(home.status).toBe(200);
    expect(home.body.emails).toEqual([{ value: 'ivy@acme.test', type: 'work', primary: true }]);
    expect((await send('GET', `/Users/${id}`)).body).toEqual(before);
    expect(await aerie.sql("select email from accounts.accounts where email in ('ivy.ng@acme.test', 'ivy@home.test')")).toEqual([]);
    expect((await auditEvents(aerie, acme)).length).toBe(eventsBefore);
  });

  it("takes the account's address from the work email when one is sent, keeping userName as sent (a UPN); two work emails are refused", async () => {
    const res = await send('POST', '/Users', { schemas: [USER], userName: 'Upn.User@acme.onmicrosoft.test', emails: [{ value: 'Mail.User@acme.test', type: 'work', primary: true }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ userName: 'Upn.User@acme.onmicrosoft.test', emails: [{ value: 'mail.user@acme.test', type: 'work', primary: true }] });
    expect(await membership('mail.user@acme.test')).toEqual({ id: res.body.id, status: 'active', role: 'Member' });
    expect(await aerie.sql("select id from accounts.accounts where lower(email) like 'upn.user@%'")).toEqual([]);
    const two = await send('POST', '/Users', { schemas: [USER], userName: 'two', emails: [{ value: 'a@acme.test', type: 'work' }, { value: 'b@acme.test', type: 'Work' }] });
    expect(two.body).toMatchObject({ status: '400', scimType: 'invalidValue', detail: expect.stringMatching(/one work email/) });
    expect(await aerie.sql("select id from accounts.accounts where email in ('a@acme.test', 'b@acme.test')")).toEqual([]);
  });

  it('answers a PATCH path it does not know with 400 invalidPath and a read-only one with mutability; the standard attributes it does not keep are accepted', async () => {
    const { id } = await membership('nina@acme.test');
    const patch = (...Operations: unknown[]) => send('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations });
    const before = (await send('GET', `/Users/${id}`)).body;
    const refused: Array<[unknown, string]> = [
      [{ op: 'replace', path: 'nickNames', value: 'x' }, 'invalidPath'],
      [{ op: 'remove', path: 'favouriteColour' }, 'invalidPath'],
      [{ op: 'replace', value: { favouriteColour: 'blue' } }, 'invalidPath'],
      [{ op: 'add', path: 'name.nickName', value: 'x' }, 'invalidPath'],
      [{ op: 'add', path: 'urn:ietf:params:scim:schemas:extension:acme:2.0:User:badge', value: 'x' }, 'invalidPath'],
      [{ op: 'add', path: `${ENTERPRISE}:shoeSize`, value: '44' }, 'invalidPath'],
      [{ op: 'replace', path: 'displayName[value eq "x"]', value: 'x' }, 'invalidPath'],
      [{ op: 'replace', path: 'emails[type eq ]', value: 'x@acme.test' }, 'invalidPath'],
      [{ op: 'replace', path: 'emails[label eq "work"].value', value: 'x@acme.test' }, 'invalidPath'],
      [{ op: 'replace', path: 'emails[type eq "work"].label', value: 'x' }, 'invalidPath'],
      [{ op: 'replace', path: 'groups', value: [] }, 'mutability'],
      [{ op: 'replace', path: 'meta.created', value: '2020-01-01T00:00:00Z' }, 'mutability'],
      [{ op: 'replace', path: 'id', value: '00000000-0000-4000-8000-000000000000' }, 'mutability'],
    ];
    for (const [op, scimType] of refused) {
      const res = await patch(op);
      expect(res.status, JSON.stringify(op)).toBe(400);
      expect(res.body, JSON.stringify(op)).toMatchObject({ schemas: [ERROR], status: '400', scimType });
    }
    // What Entra ID and Okta send by default beyond what Aerie keeps: accepted, nothing changes.
    const kept = await patch(
      { op: 'Add', path: 'title', value: 'Engineer' }, { op: 'Add', path: 'preferredLanguage', value: 'en-US' },
      { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+47 555 0100' }, { op: 'Add', path: 'addresses[type eq "work"].locality', value: 'Oslo' },
      { op: 'Add', path: `${ENTERPRISE}:employeeNumber`, value: '42' }, { op: 'Replace', path: `${ENTERPRISE}:manager`, value: 'mgr-1' },
      { op: 'Replace', path: 'nickName', value: 'Q' }, { op: 'replace', path: 'id', value: id },
    );
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body).toEqual(before);
    const [attributes] = await aerie.sql('select external_id, display_name, given_name, family_name from scim.user_attributes where membership_id = ?', [id]);
    expect(attributes).toEqual({ external_id: '00u9', display_name: 'Nine Ng', given_name: null, family_name: null });
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

  it.each([['a NUL', 'ac%00me'], ['bytes that are not UTF-8', '%FF%FE'], ['a lone surrogate', '%ED%A0%80x']])(
    'answers a valid token on a slug with %s 401, as another organization (the database never sees it)', async (_what, slug) => {
      expect((await send('GET', '/Users', undefined, token, slug)).status).toBe(401);
    });
});

/**
 * `userName` as the SCIM identifier (kept as sent, unique in any case, not necessarily an email)
 * and the six `name` sub-attributes of RFC 7643 §4.1.1, through POST, PUT, PATCH, filters and the
 * database; and the `name` shown for members the identity provider never wrote.
 * @see docs/api/scim.md "Users", "Provisioning"
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership } from '../apps/helpers.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const FULL_NAME = { formatted: 'Dr. Ann Q. Lee III', familyName: 'Lee', givenName: 'Ann', middleName: 'Quinn', honorificPrefix: 'Dr.', honorificSuffix: 'III' };

describe('SCIM userName and name', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let token: string;
  const send = (method: string, path: string, body?: unknown) =>
    aerie.request(method, `/scim/v2/acme${path}`, { token, body, headers: body === undefined ? {} : { 'content-type': 'application/scim+json' } });
  const find = async (filter: string) => (await send('GET', `/Users?filter=${encodeURIComponent(filter)}`)).body.Resources.map((u: any) => u.userName);
  const stored = async (id: string) => (await aerie.sql(`select user_name, formatted_name, family_name, given_name, middle_name, honorific_prefix, honorific_suffix
    from scim.user_attributes where membership_id = ?`, [id]))[0];

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    await addMembership(aerie, acme, 'mia@acme.test', 'Member');
    await aerie.sql("update accounts.accounts set display_name = 'Mia van Berg' where email = 'mia@acme.test'");
    token = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'IdP' } })).body.value;
  });
  afterAll(() => aerie?.close());

  it('keeps a userName that is not an address as sent; the account is the work email\'s; filters find it in any case', async () => {
    const res = await send('POST', '/Users', {
      schemas: [USER], userName: 'Test_User_7f3a', emails: [{ Primary: true, type: 'work', value: 'Test_User_9c1d@acme.test' }], name: FULL_NAME,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ userName: 'Test_User_7f3a', name: FULL_NAME, emails: [{ value: 'test_user_9c1d@acme.test', type: 'work', primary: true }] });
    const [account] = await aerie.sql("select federated_org_id from accounts.accounts where email = 'test_user_9c1d@acme.test'");
    expect(account).toEqual({ federated_org_id: acme.id });
    expect(await stored(res.body.id)).toEqual({
      user_name: 'Test_User_7f3a', formatted_name: 'Dr. Ann Q. Lee III', family_name: 'Lee', given_name: 'Ann', middle_name: 'Quinn', honorific_prefix: 'Dr.', honorific_suffix: 'III',
    });
    expect(await find('userName eq "TEST_USER_7F3A"')).toEqual(['Test_User_7f3a']);
    expect(await find('userName sw "test_user"')).toEqual(['Test_User_7f3a']);
    expect(await find('emails[type eq "work"].value eq "Test_User_9c1d@acme.test"')).toEqual(['Test_User_7f3a']);
    expect(await find('name.middleName eq "quinn" and name.honorificSuffix pr')).toEqual(['Test_User_7f3a']);
    expect(await find('userName eq "test_user_9c1d@acme.test"')).toEqual([]); // the address is not its userName
  });

  it('refuses a User with neither an address in emails nor a userName that is one (400 naming both), writing nothing', async () => {
    const events = (await auditEvents(aerie, acme)).length;
    for (const body of [{ userName: 'Test_User_b2' }, { userName: 'Test_User_b2', emails: [{ type: 'home', value: 'b2@home.test' }] }]) {
      const res = await send('POST', '/Users', { schemas: [USER], ...body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ schemas: [ERROR], status: '400', scimType: 'invalidValue', detail: expect.stringMatching(/userName .* not an email address .* work or primary email/) });
    }
    // Without a work email, the primary one (of any type) is the account's address.
    const primary = await send('POST', '/Users', { schemas: [USER], userName: 'Test_User_b3', emails: [{ type: 'home', value: 'b3@home.test', primary: true }] });
    expect(primary.body.emails).toEqual([{ value: 'b3@home.test', type: 'work', primary: true }]);
    expect(await aerie.sql("select id from accounts.accounts where email = 'b2@home.test'")).toEqual([]);
    expect((await auditEvents(aerie, acme)).length).toBe(events + 1);
  });

  it('keeps userName unique in any case — stored ones and the emails of members not provisioned — on POST, PUT and PATCH (409, nothing written)', async () => {
    const taken = [
      { userName: 'test_user_7F3A', emails: [{ type: 'work', value: 'other1@acme.test' }] },
      { userName: 'MIA@acme.test', emails: [{ type: 'work', value: 'other2@acme.test' }] }, // mia was never provisioned: her userName is her email
    ];
    for (const body of taken) {
      const res = await send('POST', '/Users', { schemas: [USER], ...body });
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.body).toMatchObject({ status: '409', scimType: 'uniqueness', detail: expect.stringMatching(/userName .* belongs to another User/) });
    }
    expect(await aerie.sql("select id from accounts.accounts where email in ('other1@acme.test', 'other2@acme.test')")).toEqual([]);
    const bob = await send('POST', '/Users', { schemas: [USER], userName: 'bob@acme.test' });
    const before = (await send('GET', `/Users/${bob.body.id}`)).body;
    const patched = await send('PATCH', `/Users/${bob.body.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'userName', value: 'Test_User_7F3A' }] });
    expect(patched.status).toBe(409);
    const put = await send('PUT', `/Users/${bob.body.id}`, { schemas: [USER], userName: 'mia@ACME.test', displayName: 'Bob' });
    expect(put.status).toBe(409);
    expect((await send('GET', `/Users/${bob.body.id}`)).body).toEqual(before);
    // A deleted User's userName is free again: a new User takes it.
    expect((await send('DELETE', `/Users/${bob.body.id}`)).status).toBe(204);
    const reused = await send('POST', '/Users', { schemas: [USER], userName: 'BOB@acme.test', emails: [{ type: 'work', value: 'robert@acme.test' }] });
    expect(reused.status, JSON.stringify(reused.body)).toBe(201);
    expect(reused.body).toMatchObject({ userName: 'BOB@acme.test', emails: [{ value: 'robert@acme.test' }] });
    expect(await aerie.sql("select user_name from scim.user_attributes where lower(user_name) = 'bob@acme.test'")).toEqual([{ user_name: 'BOB@acme.test' }]);
  });

  it('keeps every name sub-attribute through PUT (absent ones cleared) and PATCH (only those named)', async () => {
    const [user] = (await send('GET', `/Users?filter=${encodeURIComponent('userName eq "test_user_7f3a"')}`)).body.Resources;
    const patch = (...Operations: unknown[]) => send('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations });
    const put = await send('PUT', `/Users/${user.id}`, { schemas: [USER], userName: 'Test_User_7f3a', name: { givenName: 'Ann', middleName: 'Excited', familyName: 'Lee' } });
    expect(put.body.name).toEqual({ familyName: 'Lee', givenName: 'Ann', middleName: 'Excited' });
    const one = await patch({ op: 'Replace', path: 'name.honorificPrefix', value: 'Prof.' }, { op: 'add', path: 'urn:ietf:params:scim:schemas:core:2.0:User:name.formatted', value: 'Prof. Ann Lee' });
    expect(one.body.name).toEqual({ formatted: 'Prof. Ann Lee', familyName: 'Lee', givenName: 'Ann', middleName: 'Excited', honorificPrefix: 'Prof.' });
    // A complex value replaces only the sub-attributes it names (RFC 7644 §3.5.2.3); keys in any case.
    const two = await patch({ op: 'replace', path: 'name', value: { MiddleName: 'Q.', honorificSuffix: 'PhD' } }, { op: 'remove', path: 'name.formatted' });
    expect(two.body.name).toEqual({ familyName: 'Lee', givenName: 'Ann', middleName: 'Q.', honorificPrefix: 'Prof.', honorificSuffix: 'PhD' });
    expect(await stored(user.id)).toMatchObject({ middle_name: 'Q.', honorific_prefix: 'Prof.', honorific_suffix: 'PhD', formatted_name: null });
    const changed = (await auditEvents(aerie, acme, 'org.scim_user.updated')).filter((e) => e.businessData.connectedIdId === user.id).map((e) => [...e.businessData.changed].sort());
    expect(changed).toEqual([['formatted', 'honorificPrefix', 'honorificSuffix', 'middleName'], ['formatted', 'honorificPrefix'], ['formatted', 'honorificSuffix', 'middleName']]);
    expect((await patch({ op: 'remove', path: 'name' })).body.name).toBeUndefined();
    expect(await stored(user.id)).toMatchObject({ family_name: null, given_name: null, middle_name: null, honorific_prefix: null, honorific_suffix: null });
  });

  it('shows a name for members the identity provider never wrote, from their display name (else the email), until it writes them', async () => {
    const users = (await send('GET', '/Users')).body.Resources;
    const mia = users.find((u: any) => u.userName === 'mia@acme.test');
    expect(mia).toMatchObject({ displayName: 'Mia van Berg', name: { formatted: 'Mia van Berg', familyName: 'Berg', givenName: 'Mia van' } });
    expect(users.find((u: any) => u.userName === 'owner@acme.test').name).toEqual({ formatted: 'owner', familyName: 'owner', givenName: 'owner' });
    // A status change writes no attribute: still not provisioned.
    const off = await send('PATCH', `/Users/${mia.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] });
    expect(off.body).toMatchObject({ active: false, name: { givenName: 'Mia van' } });
    expect(await aerie.sql('select * from scim.user_attributes where membership_id = ?', [mia.id])).toEqual([]);
    const named = await send('PATCH', `/Users/${mia.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'name.givenName', value: 'Mia' }] });
    expect(named.body.name).toEqual({ givenName: 'Mia' });
  });
});

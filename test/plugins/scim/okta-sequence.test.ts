/**
 * What Okta sends, in its order and forms, with what the database and the audit chain hold
 * afterwards:
 * - Okta's "SCIM 2.0 SPEC Test" (the Runscope test Okta publishes for integrations, with its initial
 *   script's values: `Runscope<nnn><Family>@atko.com` as userName and email, the same in capitals
 *   for the case check), each step's headers and assertions;
 * - the requests of Okta's SCIM 2.0 reference: a connection test with a wrong token, create, the
 *   import (`startIndex=1&count=100`), the PUT that carries `name.middleName`, deactivation and
 *   password sync by pathless PATCH, Group push (create, rename, member add and remove, replace),
 *   delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
/** The headers of the spec test's read steps; its create steps send `Content-Type: application/json`. */
const RUNSCOPE_READ = { 'accept-charset': 'utf-8', 'content-type': 'application/scim+json; charset=utf-8', accept: 'application/scim+json', 'user-agent': 'OKTA SCIM Integration' };
const RUNSCOPE_CREATE = { 'content-type': 'application/json', accept: 'application/scim+json; charset=utf-8' };

describe('SCIM 2.0: Okta', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let token: string;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'content-type': 'application/scim+json' }, t = token) =>
    aerie.request(method, `/scim/v2/acme${path}`, { token: t, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  const read = (path: string) => call('GET', path, undefined, RUNSCOPE_READ);

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    token = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'Okta' } })).body.value;
  });
  afterAll(() => aerie?.close());

  it("passes every step of Okta's SCIM 2.0 spec test", async () => {
    // Optional steps: discovery, read-only.
    const spc = await read('/ServiceProviderConfig');
    expect(spc.body.schemas).toContain('urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig');
    for (const key of ['patch', 'bulk', 'filter', 'changePassword', 'sort', 'etag']) expect(spc.body[key]?.supported, key).toBeTypeOf('boolean');
    expect(spc.body).toMatchObject({ filter: { maxResults: 200 }, bulk: { maxOperations: 0, maxPayloadSize: 0 }, authenticationSchemes: [{ type: 'oauthbearertoken', description: expect.any(String) }] });
    expect((await call('POST', '/ServiceProviderConfig', '', RUNSCOPE_READ)).status).toBe(405);
    const types = await read('/ResourceTypes');
    expect(types.body).toMatchObject({ schemas: [LIST], Resources: [{ name: 'User', endpoint: '/Users', schema: USER }, { name: 'Group' }] });
    expect((await call('POST', '/ResourceTypes', '', RUNSCOPE_READ)).status).toBe(405);
    expect((await read('/Schemas')).body.Resources[0]).toMatchObject({ id: USER, attributes: expect.any(Array) });

    // "Test Users endpoint": the first User (here the Owner, whom the identity provider never wrote) has a name, emails, all of it.
    const first = await read('/Users?count=1&startIndex=1');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ schemas: [LIST], totalResults: 1, startIndex: 1, itemsPerPage: 1 });
    const isvUser = first.body.Resources[0];
    expect(isvUser).toMatchObject({ id: expect.any(String), userName: 'owner@acme.test', active: true, name: { givenName: 'owner', familyName: 'owner' }, emails: [{ value: 'owner@acme.test' }] });
    // "Get Users/{{id}}"
    expect((await read(`/Users/${isvUser.id}`)).body).toEqual(isvUser);
    // "Test invalid User by username", "Test invalid User by ID", "Make sure random user doesn't exist"
    expect((await read(`/Users?filter=${encodeURIComponent('userName eq "abcdefgh@atko.com"')}`)).body).toMatchObject({ schemas: [LIST], totalResults: 0 });
    const invalid = await read('/Users/010101001010101011001010101011');
    expect(invalid.status).toBe(404);
    expect(invalid.body).toEqual({ schemas: [ERROR], status: '404', detail: expect.stringMatching(/\S/) });
    const email = 'Runscope300Hfluaklab151@atko.com';
    expect((await read(`/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`)).body.totalResults).toBe(0);

    // "Create Okta user with realistic values": userName comes back exactly as sent.
    const body = { schemas: [USER], userName: email, name: { givenName: 'Runscope300', familyName: 'Hfluaklab151' }, emails: [{ primary: true, value: email, type: 'work' }],
      displayName: 'Runscope300 Hfluaklab151', active: true };
    const created = await call('POST', '/Users', body, RUNSCOPE_CREATE);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ active: true, id: expect.any(String), name: { familyName: 'Hfluaklab151', givenName: 'Runscope300' }, userName: email });
    expect(created.body.schemas).toContain(USER);
    // "Verify that user was created"
    expect((await read(`/Users/${created.body.id}`)).body).toMatchObject({ userName: email, name: { familyName: 'Hfluaklab151', givenName: 'Runscope300' } });
    // "Expect failure when recreating user with same values"
    expect((await call('POST', '/Users', { ...body, emails: [{ primary: true, value: email, type: 'work' }] }, RUNSCOPE_CREATE)).status).toBe(409);
    // "Username Case Sensitivity Check"
    const caps = await read(`/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}`);
    expect(caps.status).toBe(200);
    expect(caps.body.Resources.map((u: any) => u.userName)).toEqual([email]);
    // "Verify Groups endpoint"
    const groups = await read('/Groups');
    expect(groups.body.totalResults).toBeGreaterThanOrEqual(1);
    expect(Array.isArray(groups.body.Resources)).toBe(true);

    expect((await aerie.sql("select user_name from scim.user_attributes where lower(user_name) = 'runscope300hfluaklab151@atko.com'"))).toEqual([{ user_name: email }]);
    expect((await aerie.sql("select federated_org_id from accounts.accounts where email = 'runscope300hfluaklab151@atko.com'"))).toEqual([{ federated_org_id: acme.id }]);
  });

  it("answers the requests of Okta's SCIM 2.0 reference: connection test, import, PUT with middleName, PATCH, Group push", async () => {
    // Test Connector Configuration with a wrong token: a SCIM error body Okta can show.
    const wrong = await call('GET', '/Users?startIndex=1&count=1', undefined, {}, 'scim_not_a_token');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ schemas: [ERROR], status: '401', detail: expect.any(String) });

    const created = await call('POST', '/Users', {
      schemas: [USER], userName: 'test.user@okta.local', name: { givenName: 'Test', familyName: 'User' }, emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User', locale: 'en-US', externalId: '00ujl29u0le5T6Aj10h7', groups: [], password: '1mz050nq', active: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    // The import: every User carries a given and a family name (the Owner's from its email, the rest as provisioned).
    const imported = await call('GET', '/Users?startIndex=1&count=100');
    for (const user of imported.body.Resources) expect(user.name, user.userName).toMatchObject({ givenName: expect.stringMatching(/\S/), familyName: expect.stringMatching(/\S/) });

    // Update a specific User (PUT): Okta's body, name.middleName included, kept and answered.
    const put = await call('PUT', `/Users/${id}`, {
      schemas: [USER], id, userName: 'test.user@okta.local', name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work', display: 'test.user@okta.local' }], active: true, groups: [], meta: { resourceType: 'User' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.name).toEqual({ familyName: 'User', givenName: 'Another', middleName: 'Excited' });
    expect((await call('GET', `/Users/${id}`)).body.name).toEqual({ familyName: 'User', givenName: 'Another', middleName: 'Excited' });
    // Deactivation and password sync: pathless PATCHes; the password is accepted and never kept.
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] })).body).toMatchObject({ active: false, name: { middleName: 'Excited' } });
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { password: 'Kv7J2LEa' } }] })).status).toBe(200);
    expect((await aerie.sql('select status from orgs.memberships where id = ?', [id]))[0].status).toBe('suspended');
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: true } }] })).body.active).toBe(true);

    // Group push: create, rename (pathless replace with the id), remove and add members in one PATCH, replace the list, delete.
    const group = await call('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const gid = group.body.id as string;
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { id: gid, displayName: 'Test SCIMv20' } }] })).status).toBe(204);
    const other = await call('POST', '/Users', { schemas: [USER], userName: 'other.user@okta.local', name: { givenName: 'Other', familyName: 'User' } });
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [
      { op: 'remove', path: `members[value eq "${other.body.id}"]` }, { op: 'add', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }] }] })).status).toBe(204);
    expect((await call('GET', `/Groups/${gid}`)).body).toMatchObject({ displayName: 'Test SCIMv20', members: [{ value: id, display: 'Test User' }] });
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [
      { op: 'replace', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }, { value: other.body.id, display: 'other.user@okta.local' }] }] })).status).toBe(204);
    expect((await aerie.sql('select membership_id from rbac.role_assignments where role_id = ? order by membership_id', [gid])).map((r) => r.membership_id))
      .toEqual([id, other.body.id].sort());
    expect((await call('DELETE', `/Groups/${gid}`)).status).toBe(204);
    expect((await call('DELETE', `/Users/${id}`)).status).toBe(204);

    const events = (await auditEvents(aerie, acme)).filter((e) => e.businessData.connectedIdId === id || e.businessData.roleId === gid);
    expect(events.map((e) => e.eventType)).toEqual([
      'org.member.provisioned', 'org.scim_user.updated', 'org.member.suspended', 'org.member.reactivated',
      'org.role.created', 'org.scim_group.provisioned', 'org.role.updated', 'org.scim_group.updated', 'org.role.assigned', 'org.scim_group.updated',
      'org.role.assigned', 'org.scim_group.updated', 'org.role.unassigned', 'org.role.unassigned', 'org.role.deleted', 'org.scim_group.deleted', // the delete takes the role from both
      'org.member.revoked',
    ]);
    // What changed is named, never its value; the password appears nowhere.
    expect([...events[1].businessData.changed].sort()).toEqual(['displayName', 'externalId', 'givenName', 'middleName']);
    expect(JSON.stringify(events)).not.toMatch(/Excited|Kv7J2LEa|1mz050nq/);
    expect(JSON.stringify(await aerie.sql('select * from scim.user_attributes where membership_id = ?', [id]))).not.toMatch(/Kv7J2LEa|1mz050nq/);
  });
});

/**
 * What Microsoft Entra ID sends, in its order and forms, with what the database and the audit chain
 * hold afterwards:
 * - the requests Microsoft publishes for its SCIM validator and provisioning service (Learn, "Develop
 *   and plan provisioning for a SCIM endpoint", *SCIM protocol requests and responses*): a
 *   `userName` that is not an address (`Test_User_<guid>`) with the address in
 *   `emails[type eq "work"]`, lookups by `userName`, `externalId` and the work email, the PATCH
 *   forms, disable (soft delete), delete (hard delete), the Group requests and `/Schemas`;
 * - a provisioning job's default mapping: `userName` the UPN, the work email `mail`, capitalised
 *   `op` values, booleans as "True"/"False", the enterprise extension, Groups read with
 *   `excludedAttributes=members` and members added and removed one PATCH at a time.
 * @see docs/api/scim.md "Setting up Okta and Entra ID"
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
/** Entra ID sends its bodies as `application/scim+json` (the bearer token is added by `aerie.request`). */
const ENTRA_HEADERS = { 'content-type': 'application/scim+json' };

describe('SCIM 2.0: Microsoft Entra ID', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let token: string;
  const call = (method: string, path: string, body?: unknown) =>
    aerie.request(method, `/scim/v2/acme${path}`, { token, headers: ENTRA_HEADERS, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const filter = (resource: string, f: string, extra = '') => call('GET', `/${resource}?filter=${encodeURIComponent(f)}${extra}`);
  const ids = async (resource: string, f: string) => (await filter(resource, f)).body.Resources.map((r: any) => r.id);

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    token = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'Entra ID' } })).body.value;
  });
  afterAll(() => aerie?.close());

  it("answers the validator's published User requests: a userName that is not an address, lookups, PATCH forms, soft and hard delete", async () => {
    const userName = 'Test_User_00aa00aa-bb11-cc22-dd33-44ee44ee44ee';
    const mail = 'Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com';
    const externalId = '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef';
    const none = await filter('Users', `userName eq "${userName}"`);
    expect(none.body).toEqual({ schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

    // Create User, exactly the published body.
    const created = await call('POST', '/Users', {
      schemas: [USER, ENTERPRISE], externalId, userName, active: true, emails: [{ primary: true, type: 'work', value: mail }],
      meta: { resourceType: 'User' }, name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' }, roles: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toEqual({
      schemas: [USER], id, externalId, userName, name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      active: true, emails: [{ value: mail.toLowerCase(), type: 'work', primary: true }],
      meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location: created.headers.get('location'), version: expect.stringMatching(/^W\//) },
    });
    expect((await aerie.sql('select email, federated_org_id from accounts.accounts a join orgs.memberships m on m.account_id = a.id where m.id = ?', [id]))[0])
      .toEqual({ email: mail.toLowerCase(), federated_org_id: acme.id });

    // Get User; an unknown id is the SCIM 404; Get User by query, and by what else it matches on.
    expect((await call('GET', `/Users/${id}`)).body).toEqual(created.body);
    const unknown = await call('GET', '/Users/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ schemas: [ERROR], status: '404', detail: expect.any(String) });
    expect(await ids('Users', `userName eq "${userName}"`)).toEqual([id]);
    expect(await ids('Users', `userName eq "${userName.toUpperCase()}"`)).toEqual([id]);
    expect(await ids('Users', 'userName eq "non-existent user"')).toEqual([]);
    expect(await ids('Users', `externalId eq "${externalId}"`)).toEqual([id]);
    expect(await ids('Users', `emails[type eq "work"].value eq "${mail}"`)).toEqual([id]);
    expect(await ids('Users', `userName eq "${userName}" and externalId eq "${externalId}"`)).toEqual([id]);
    expect(await ids('Users', `userName eq "${userName}" and externalId eq "another"`)).toEqual([]);

    // Update User [Multi-valued properties]: the work email is the account's address; this User is the
    // organization's own account (a new address), so its directory may change it, with the name.
    const multi = await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' }, { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' }] });
    expect(multi.status, JSON.stringify(multi.body)).toBe(200);
    expect(multi.body).toMatchObject({ emails: [{ value: 'updatedemail@microsoft.com', type: 'work', primary: true }] });
    expect(multi.body.name).toEqual({ formatted: 'givenName familyName', familyName: 'updatedFamilyName', givenName: 'givenName' });
    expect(await ids('Users', 'emails[type eq "work"].value eq "updatedEmail@microsoft.com"')).toEqual([id]);
    const [account] = await aerie.sql('select email, federated_org_id from accounts.accounts where email = ?', ['updatedemail@microsoft.com']);
    expect(account).toEqual({ email: 'updatedemail@microsoft.com', federated_org_id: acme.id });

    // Update User [Single-valued properties]: a new userName; the account's address stays.
    const renamed = await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }] });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ userName: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com', emails: [{ value: 'updatedemail@microsoft.com' }] });
    expect(await ids('Users', 'userName eq "5B50642D-79FC-4410-9E90-4C077CDD1A59@testuser.com"')).toEqual([id]);
    expect(await ids('Users', `userName eq "${userName}"`)).toEqual([]);

    // Disable User (soft delete): still returned and found, active false. Delete User (hard delete): gone.
    const disabled = await call('PATCH', `/Users/${id}`, { Operations: [{ op: 'Replace', path: 'active', value: false }], schemas: [PATCH] });
    expect(disabled.body).toMatchObject({ id, active: false });
    expect((await filter('Users', `externalId eq "${externalId}"`)).body.Resources).toEqual([expect.objectContaining({ id, active: false })]);
    expect((await call('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await call('GET', `/Users/${id}`)).status).toBe(404);
    expect(await ids('Users', `externalId eq "${externalId}"`)).toEqual([]);
    expect((await aerie.sql('select status from orgs.memberships where id = ?', [id]))[0].status).toBe('revoked');

    const chain = (await auditEvents(aerie, acme)).filter((e) => e.businessData.connectedIdId === id);
    expect(chain.map((e) => e.eventType)).toEqual(['org.member.provisioned', 'org.scim_user.updated', 'org.scim_user.updated', 'org.member.suspended', 'org.member.revoked']);
    expect(chain.slice(1, 3).map((e) => e.businessData.changed)).toEqual([['familyName', 'email'], ['userName']]);
  });

  it("answers the validator's published Group requests and /Schemas", async () => {
    const member = await call('POST', '/Users', { schemas: [USER], userName: 'Test_User_member', emails: [{ primary: true, type: 'work', value: 'member@testuser.com' }] });
    const created = await call('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'], externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName', meta: { resourceType: 'Group' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const gid = created.body.id as string;
    expect(created.body).toMatchObject({ schemas: [GROUP], id: gid, externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', displayName: 'displayName', members: [] });
    const got = await call('GET', `/Groups/${gid}?excludedAttributes=members`);
    expect(got.body).toMatchObject({ id: gid, displayName: 'displayName' });
    expect(got.body.members).toBeUndefined();
    const byName = await filter('Groups', 'displayName eq "displayName"', '&excludedAttributes=members');
    expect(byName.body).toMatchObject({ schemas: [LIST], totalResults: 1, Resources: [{ id: gid, displayName: 'displayName' }] });
    const renamed = '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName';
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'displayName', value: renamed }] })).status).toBe(204);
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: member.body.id }] }] })).status).toBe(204);
    expect((await aerie.sql('select membership_id from rbac.role_assignments where role_id = ?', [gid])).map((r) => r.membership_id)).toEqual([member.body.id]);
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: member.body.id }] }] })).status).toBe(204);
    expect(await aerie.sql('select membership_id from rbac.role_assignments where role_id = ?', [gid])).toEqual([]);
    expect((await aerie.sql('select name from rbac.roles where id = ?', [gid]))[0].name).toBe(renamed);
    expect((await call('DELETE', `/Groups/${gid}`)).status).toBe(204);
    expect(await aerie.sql('select id from rbac.roles where id = ?', [gid])).toEqual([]);

    const schemas = await call('GET', '/Schemas');
    expect(schemas.body).toMatchObject({ schemas: [LIST], totalResults: 2 });
    const user = schemas.body.Resources.find((r: any) => r.id === USER);
    expect(user.attributes.find((a: any) => a.name === 'userName')).toMatchObject({ type: 'string', required: true, caseExact: false, mutability: 'readWrite', uniqueness: 'server' });
    expect(user.attributes.find((a: any) => a.name === 'name').subAttributes.map((a: any) => a.name))
      .toEqual(['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix']);
  });

  it("runs a provisioning job's sequence: userName the UPN, the work email mail, the enterprise extension, Groups one PATCH at a time", async () => {
    /** A user as Entra ID's default mapping creates it: userPrincipalName → userName, mail → the work email. */
    const entraUser = (upn: string, mail: string, objectId: string, givenName: string) => ({
      schemas: [USER, ENTERPRISE], externalId: objectId, userName: upn, active: true, displayName: `${givenName} Tester`,
      emails: [{ primary: true, type: 'work', value: mail }], meta: { resourceType: 'User' },
      name: { formatted: `${givenName} Tester`, familyName: 'Tester', givenName }, title: 'Engineer', preferredLanguage: 'en-US',
      phoneNumbers: [{ type: 'work', value: '+47 555 0100' }, { type: 'mobile', value: '+47 555 0199' }],
      addresses: [{ type: 'work', formatted: '1 Fjord Road', streetAddress: '1 Fjord Road', locality: 'Oslo', postalCode: '0150', country: 'NO', primary: false }],
      roles: [],
      [ENTERPRISE]: { employeeNumber: '1042', department: 'R&D', costCenter: 'CC-7', organization: 'Acme', division: 'Labs', manager: { value: 'a1b2c3' } },
    });
    const upn = 'Tess.Tester@acme.onmicrosoft.test';
    expect((await filter('Users', `userName eq "${upn}"`)).body.totalResults).toBe(0);
    const created = await call('POST', '/Users', entraUser(upn, 'tess@acme.test', '9b0f8c84-65b1-4c6a-a5c4-6ad7c1f0bd01', 'Tess'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ userName: upn, displayName: 'Tess Tester', name: { formatted: 'Tess Tester', familyName: 'Tester', givenName: 'Tess' }, emails: [{ value: 'tess@acme.test' }] });
    const second = await call('POST', '/Users', entraUser('Sam.Tester@acme.onmicrosoft.test', 'sam@acme.test', '9c1d7a02-2f0b-4b77-a1d5-0b5b5a1f3a10', 'Sam'));
    expect(second.status).toBe(201);
    expect(await ids('Users', `userName eq "${upn.toLowerCase()}"`)).toEqual([id]);

    // Attribute updates in one PATCH: capitalised ops, the work email unchanged, attributes Aerie does not keep.
    const updated = await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'Tess@acme.test' }, { op: 'Replace', path: 'name.familyName', value: 'Updated' },
      { op: 'Replace', path: 'displayName', value: 'Tess Updated' }, { op: 'Add', path: 'title', value: 'Lead' },
      { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+47 555 0101' }, { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Platform' },
      { op: 'Add', path: `${ENTERPRISE}:manager`, value: '9c1d7a02-2f0b-4b77-a1d5-0b5b5a1f3a10' }] });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ id, userName: upn, name: { givenName: 'Tess', familyName: 'Updated' }, displayName: 'Tess Updated', active: true });
    expect(updated.body.emails).toEqual([{ value: 'tess@acme.test', type: 'work', primary: true }]);

    // Disable with "False", Groups looked up and created, re-enable with "True" (a disabled user gets no role), members one PATCH at a time.
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] })).body.active).toBe(false);
    expect((await filter('Groups', 'displayName eq "Entra Engineers"', '&excludedAttributes=members')).body.totalResults).toBe(0);
    const group = await call('POST', '/Groups', { schemas: [GROUP], externalId: '8aa1a0c0-0000-4bc0-b4a5-2ef676900159', displayName: 'Entra Engineers' });
    const gid = group.body.id as string;
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] })).body.active).toBe(true);
    for (const member of [id, second.body.id]) {
      expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: member }] }] })).status).toBe(204);
    }
    const isMember = (user: string) => filter('Groups', `id eq "${gid}" and members[value eq "${user}"]`, '&excludedAttributes=members');
    expect((await isMember(id)).body.totalResults).toBe(1);
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Remove', path: `members[value eq "${second.body.id}"]` }] })).status).toBe(204);
    expect((await isMember(second.body.id)).body.totalResults).toBe(0);
    expect((await aerie.sql('select membership_id from rbac.role_assignments where role_id = ?', [gid])).map((r) => r.membership_id)).toEqual([id]);
    expect((await aerie.sql('select user_name, external_id, given_name, family_name, display_name from scim.user_attributes where membership_id = ?', [id]))[0])
      .toEqual({ user_name: upn, external_id: '9b0f8c84-65b1-4c6a-a5c4-6ad7c1f0bd01', given_name: 'Tess', family_name: 'Updated', display_name: 'Tess Updated' });
    expect((await call('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await call('DELETE', `/Groups/${gid}`)).status).toBe(204);

    const chain = (await auditEvents(aerie, acme)).filter((e) => e.businessData.connectedIdId === id || e.businessData.roleId === gid);
    expect(chain.map((e) => e.eventType)).toEqual([
      'org.member.provisioned', 'org.scim_user.updated', 'org.member.suspended', 'org.role.created', 'org.scim_group.provisioned', 'org.member.reactivated',
      'org.role.assigned', 'org.scim_group.updated', 'org.role.assigned', 'org.scim_group.updated', 'org.role.unassigned', 'org.scim_group.updated',
      'org.member.revoked', 'org.role.deleted', 'org.scim_group.deleted',
    ]);
    // Names of what changed, never the values (personal data stays off the chain), and the SCIM token as the actor.
    expect([...chain[1].businessData.changed].sort()).toEqual(['displayName', 'familyName']);
    expect(JSON.stringify(chain.map((e) => e.businessData))).not.toMatch(/Platform|\+47|Tess Updated|onmicrosoft/);
    expect(chain.find((e) => e.eventType === 'org.scim_group.provisioned')?.actorType).toBe('system');
  });
});

/**
 * The request sequence Microsoft Entra ID's provisioning service (and its SCIM validator) sends, in
 * its order and forms: `application/scim+json` bodies, `Test_User_…` names, capitalised `op` values, booleans as the
 * strings "True"/"False", the enterprise extension, `emails[type eq "work"].value`, Groups read with
 * `excludedAttributes=members` and members added and removed one PATCH at a time — with what the
 * database and the audit chain hold afterwards.
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
/** Entra ID sends its bodies as `application/scim+json` (the bearer token is added by `aerie.request`). */
const ENTRA_HEADERS = { 'content-type': 'application/scim+json' };

describe("SCIM 2.0: Microsoft Entra ID's provisioning sequence", () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let token: string;
  const call = (method: string, path: string, body?: unknown) =>
    aerie.request(method, `/scim/v2/acme${path}`, { token, headers: ENTRA_HEADERS, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const filter = (resource: string, f: string, extra = '') => call('GET', `/${resource}?filter=${encodeURIComponent(f)}${extra}`);
  /** A user as Entra ID creates it: the core schema, the enterprise extension and the attributes of its default mapping. */
  const entraUser = (upn: string, objectId: string, givenName: string) => ({
    schemas: [USER, ENTERPRISE], externalId: objectId, userName: upn, active: true, displayName: `${givenName} Tester`,
    emails: [{ primary: true, type: 'work', value: upn }], meta: { resourceType: 'User' },
    name: { formatted: `${givenName} Tester`, familyName: 'Tester', givenName }, title: 'Engineer', preferredLanguage: 'en-US',
    phoneNumbers: [{ type: 'work', value: '+47 555 0100' }, { type: 'mobile', value: '+47 555 0199' }],
    addresses: [{ type: 'work', formatted: '1 Fjord Road', streetAddress: '1 Fjord Road', locality: 'Oslo', postalCode: '0150', country: 'NO', primary: false }],
    roles: [],
    [ENTERPRISE]: { employeeNumber: '1042', department: 'R&D', costCenter: 'CC-7', organization: 'Acme', division: 'Labs', manager: { value: 'a1b2c3' } },
  });

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    token = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'Entra ID' } })).body.value;
  });
  afterAll(() => aerie?.close());

  it('runs the sequence as Entra ID sends it', async () => {
    // 1. Entra ID first looks the user up by userName: none yet.
    const upn = 'Test_User_ab6490ee@acme.test';
    const missing = await filter('Users', `userName eq "${upn}"`);
    expect(missing.status).toBe(200);
    expect(missing.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(missing.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

    // 2. It creates the user with the enterprise extension; what Aerie does not keep is accepted.
    const created = await call('POST', '/Users', entraUser(upn, '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef', 'Tess'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.get('location')).toBe(created.body.meta.location);
    expect(created.body).toEqual({
      schemas: [USER], id, externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef', userName: upn.toLowerCase(), name: { givenName: 'Tess', familyName: 'Tester' },
      displayName: 'Tess Tester', active: true, emails: [{ value: upn.toLowerCase(), type: 'work', primary: true }],
      meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location: expect.stringMatching(new RegExp(`/scim/v2/acme/Users/${id}$`)), version: expect.stringMatching(/^W\//) },
    });
    const second = await call('POST', '/Users', entraUser('Test_User_5b50642d@acme.test', '9c1d7a02-2f0b-4b77-a1d5-0b5b5a1f3a10', 'Sam'));
    expect(second.status).toBe(201);

    // 3. It finds the user by userName again (Entra ID keeps the case it sent) and by externalId.
    const found = await filter('Users', `userName eq "${upn}"`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });
    expect((await filter('Users', 'externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')).body.Resources.map((u: any) => u.id)).toEqual([id]);

    // 4. Attribute updates, one PATCH with capitalised ops and the work email as Entra ID addresses it.
    const updated = await call('PATCH', `/Users/${id}`, {
      schemas: [PATCH], Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: upn },
        { op: 'Replace', path: 'name.familyName', value: 'Updated' },
        { op: 'Replace', path: 'displayName', value: 'Tess Updated' },
        { op: 'Add', path: 'title', value: 'Lead' },
        { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+47 555 0101' },
        { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Platform' },
        { op: 'Add', path: `${ENTERPRISE}:manager`, value: '9c1d7a02-2f0b-4b77-a1d5-0b5b5a1f3a10' },
      ],
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ id, userName: upn.toLowerCase(), name: { givenName: 'Tess', familyName: 'Updated' }, displayName: 'Tess Updated', active: true });
    expect(updated.body.emails).toEqual([{ value: upn.toLowerCase(), type: 'work', primary: true }]);
    // Its validator's rename of the work email and userName: Aerie keeps the address as the account's identity.
    const renamed = await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@acme.test' }] });
    expect(renamed.status).toBe(400);
    expect(renamed.body).toEqual({ schemas: [ERROR], status: '400', scimType: 'mutability', detail: expect.any(String) });
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'userName', value: 'updatedEmail@acme.test' }] })).body.scimType).toBe('mutability');

    // 5. Disable: "False" as a string.
    const disabled = await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(disabled.status).toBe(200);
    expect(disabled.body.active).toBe(false);

    // 6. Groups: looked up by displayName without members, then created.
    const noGroup = await filter('Groups', 'displayName eq "Entra Engineers"', '&excludedAttributes=members');
    expect(noGroup.body).toMatchObject({ totalResults: 0, Resources: [] });
    const group = await call('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/Group'], externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'Entra Engineers', meta: { resourceType: 'Group' },
    });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const gid = group.body.id as string;
    expect(group.body).toMatchObject({ id: gid, displayName: 'Entra Engineers', externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', members: [] });
    const listed = await filter('Groups', 'displayName eq "Entra Engineers"', '&excludedAttributes=members');
    expect(listed.body.Resources).toEqual([expect.objectContaining({ id: gid, displayName: 'Entra Engineers' })]);
    expect(listed.body.Resources[0].members).toBeUndefined();

    // 7. Members, one PATCH at a time. A disabled user gets no role, so Entra ID re-enables first.
    const enabled = await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] });
    expect(enabled.body.active).toBe(true);
    for (const member of [id, second.body.id]) {
      const add = await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: member }] }] });
      expect(add.status, JSON.stringify(add.body)).toBe(204);
    }
    const isMember = (user: string) => filter('Groups', `id eq "${gid}" and members[value eq "${user}"]`, '&excludedAttributes=members');
    expect((await isMember(id)).body.totalResults).toBe(1);
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Remove', path: `members[value eq "${second.body.id}"]` }] })).status).toBe(204);
    expect((await isMember(second.body.id)).body.totalResults).toBe(0);
    expect((await call('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'displayName', value: 'Entra Engineers (renamed)' }] })).status).toBe(204);
    const [role] = await aerie.sql('select name, is_preset from rbac.roles where id = ?', [gid]);
    expect(role).toEqual({ name: 'Entra Engineers (renamed)', is_preset: false });
    expect((await aerie.sql('select membership_id from rbac.role_assignments where role_id = ?', [gid])).map((r) => r.membership_id)).toEqual([id]);
    expect((await aerie.sql('select external_id, given_name, family_name, display_name from scim.user_attributes where membership_id = ?', [id]))[0])
      .toEqual({ external_id: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef', given_name: 'Tess', family_name: 'Updated', display_name: 'Tess Updated' });

    // 8. Deprovisioning: the user, then the group.
    expect((await call('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await call('GET', `/Users/${id}`)).status).toBe(404);
    expect((await aerie.sql('select status from orgs.memberships where id = ?', [id]))[0].status).toBe('revoked');
    expect(await aerie.sql('select * from rbac.role_assignments where membership_id = ?', [id])).toEqual([]);
    expect((await call('DELETE', `/Groups/${gid}`)).status).toBe(204);
    expect((await call('GET', `/Groups/${gid}`)).status).toBe(404);
    expect(await aerie.sql('select id from rbac.roles where id = ?', [gid])).toEqual([]);

    const chain = (await auditEvents(aerie, acme)).filter((e) => e.businessData.connectedIdId === id || e.businessData.roleId === gid);
    expect(chain.map((e) => e.eventType)).toEqual([
      'org.member.provisioned', 'org.scim_user.updated', 'org.member.suspended', // create, attribute PATCH (the refused ones left nothing), "False"
      'org.role.created', 'org.scim_group.provisioned', 'org.member.reactivated', // the Group, then "True"
      'org.role.assigned', 'org.scim_group.updated', 'org.role.assigned', 'org.scim_group.updated', // two Add PATCHes
      'org.role.unassigned', 'org.scim_group.updated', 'org.role.updated', 'org.scim_group.updated', // Remove by value filter, rename
      'org.member.revoked', 'org.role.deleted', 'org.scim_group.deleted',
    ]);
    // Names of what changed, never the values (personal data stays off the chain), and the SCIM token as the actor.
    expect([...chain[1].businessData.changed].sort()).toEqual(['displayName', 'familyName']);
    expect(JSON.stringify(chain.map((e) => e.businessData))).not.toMatch(/Platform|\+47|Tess Updated/);
    expect(chain.find((e) => e.eventType === 'org.scim_group.provisioned')?.actorType).toBe('system');
  });
});

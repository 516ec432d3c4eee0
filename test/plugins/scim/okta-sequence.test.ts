/**
 * The request sequence Okta's SCIM 2.0 test suite (Runscope "Okta SCIM 2.0 Spec Test") sends, in
 * its order and forms: discovery, create, get by id, filter by userName (existing and not), paging,
 * PUT, PATCH replace/add/remove, deactivate, groups with member add and remove, delete — with what
 * the database and the audit chain hold afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe("SCIM 2.0: Okta's test-suite sequence", () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let token: string;
  const call = (method: string, path: string, body?: unknown) =>
    aerie.request(method, `/scim/v2/acme${path}`, { token, headers: { 'content-type': 'application/scim+json' }, ...(body ? { body: JSON.stringify(body) } : {}) });

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    token = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'Okta' } })).body.value;
  });
  afterAll(() => aerie?.close());

  it('runs the sequence as Okta sends it', async () => {
    expect((await call('GET', '/ServiceProviderConfig')).status).toBe(200);
    // Okta first looks the user up by userName, then creates it.
    const missing = await call('GET', `/Users?filter=${encodeURIComponent('userName eq "okta.user@acme.test"')}&startIndex=1&count=100`);
    expect(missing.body).toMatchObject({ totalResults: 0, Resources: [] });
    const created = await call('POST', '/Users', {
      schemas: [USER], userName: 'okta.user@acme.test', name: { givenName: 'Okta', familyName: 'User' }, emails: [{ primary: true, value: 'okta.user@acme.test', type: 'work' }],
      displayName: 'Okta User', externalId: '00u1', active: true, groups: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect((await call('GET', `/Users/${id}`)).body).toMatchObject({ id, userName: 'okta.user@acme.test', active: true, externalId: '00u1' });
    const found = await call('GET', `/Users?filter=${encodeURIComponent('userName eq "OKTA.USER@acme.test"')}&startIndex=1&count=1`);
    expect(found.body).toMatchObject({ totalResults: 1, itemsPerPage: 1, startIndex: 1 });
    // Creating the same user again: 409 uniqueness.
    expect((await call('POST', '/Users', { schemas: [USER], userName: 'okta.user@acme.test' })).status).toBe(409);
    // Unknown id: 404.
    expect((await call('GET', '/Users/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    // PUT with a new name.
    const put = await call('PUT', `/Users/${id}`, { schemas: [USER], id, userName: 'okta.user@acme.test', name: { givenName: 'Okta', familyName: 'Renamed' }, externalId: '00u1', active: true });
    expect(put.body.name).toMatchObject({ familyName: 'Renamed' });
    // PATCH replace (Okta: pathless value object), add, remove.
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { 'name.givenName': 'Patched' } }] })).status).toBe(200);
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'displayName', value: 'Shown Name' }] })).body.displayName).toBe('Shown Name');
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: 'displayName' }] })).status).toBe(200);
    // Group with a member added and removed.
    const group = await call('POST', '/Groups', { schemas: [GROUP], displayName: 'Okta Testers', members: [] });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    expect((await call('PATCH', `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: id }] }] })).status).toBe(204);
    expect((await call('GET', `/Groups/${group.body.id}`)).body.members).toEqual([expect.objectContaining({ value: id })]);
    expect((await call('PATCH', `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }] })).status).toBe(204);
    // Deactivate, then delete.
    expect((await call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] })).body.active).toBe(false);
    const [membership] = await aerie.sql('select status from orgs.memberships where id = ?', [id]);
    expect(membership.status).toBe('suspended');
    expect((await call('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await call('GET', `/Users/${id}`)).status).toBe(404);

    const events = await auditEvents(aerie, acme, 'org.member.provisioned', 'org.scim_user.updated', 'org.scim_group.provisioned', 'org.scim_group.updated');
    expect(events.map((e) => e.eventType)).toEqual([
      'org.member.provisioned', 'org.scim_user.updated', 'org.scim_user.updated', 'org.scim_user.updated', 'org.scim_user.updated',
      'org.scim_group.provisioned', 'org.scim_group.updated', 'org.scim_group.updated',
    ]);
    // What changed is named, never its value.
    // PUT replaces: the displayName it left out is cleared too.
    expect(events[1].businessData).toMatchObject({ connectedIdId: id });
    expect([...events[1].businessData.changed].sort()).toEqual(['displayName', 'familyName']);
    expect(JSON.stringify(events.map((e) => e.businessData))).not.toContain('Renamed');
  });
});

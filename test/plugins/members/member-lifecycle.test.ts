import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { assign, customRole, invitationToken, invite, joinOrg, roleId, startMembers } from '../../helpers/org-members.ts';
import { createOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

describe('members: edit, suspend, revoke, delete', () => {
  let aerie: TestAerie;
  let owner: string;
  let ownerId: string;

  const member = async (id: string) => (await aerie.request('GET', '/api/org/acme/members', { token: owner })).body.Members.find((m: { ConnectedIdId: string }) => m.ConnectedIdId === id);
  const post = (token: string, id: string, action: 'suspend' | 'revoke') => aerie.request('POST', `/api/org/acme/members/${id}/${action}`, { token });
  const patch = (token: string, id: string, body: unknown) => aerie.request('PATCH', `/api/org/acme/members/${id}`, { token, body });

  beforeAll(async () => {
    aerie = await startMembers();
    owner = await aerie.signIn('owner@acme.example');
    await createOrg(aerie, owner, 'acme');
    const list = await aerie.request('GET', '/api/org/acme/members', { token: owner });
    ownerId = list.body.Members[0].ConnectedIdId;
  });
  afterAll(() => aerie?.close());

  it('lists members with their roles, membership type and profile', async () => {
    const { id } = await joinOrg(aerie, owner, 'acme', 'lia@example.com', 'ORG_FREELANCER');
    const res = await aerie.request('GET', '/api/org/acme/members', { token: owner });
    expect(res.status).toBe(200);
    expect(res.body.Members[0]).toMatchObject({ ConnectedIdId: ownerId, Email: 'owner@acme.example', Role: 'Owner', Status: 'active', MembershipType: 'Member', Roles: [] });
    expect(await member(id)).toMatchObject({
      Email: 'lia@example.com', Role: 'Member', Status: 'active', MembershipType: 'Freelancer', ReportingManagerId: null,
      Roles: [expect.objectContaining({ RoleKey: 'ORG_FREELANCER', Permissions: ['org.project.list', 'org.project.read'] })],
    });
  });

  it('keeps the reporting manager given at invitation and edits it, the title and the role with PATCH', async () => {
    const RoleId = await roleId(aerie, owner, 'acme', 'ORG_GUEST');
    await invite(aerie, owner, 'acme', { Email: 'max@example.com', RoleId, ReportingManagerId: ownerId });
    const max = await aerie.signIn('max@example.com');
    const accepted = await aerie.request('POST', '/api/org/invitation/accept', { token: max, body: { Token: invitationToken(aerie, 'max@example.com') } });
    const id = accepted.body.Member.ConnectedIdId;
    expect((await member(id)).ReportingManagerId).toBe(ownerId);

    const res = await patch(owner, id, { Title: 'Controller', ReportingManagerId: null, Role: 'Admin' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ConnectedIdId: id, Title: 'Controller', ReportingManagerId: null, Role: 'Admin' });
    expect((await patch(owner, id, { ReportingManagerId: id })).body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'ReportingManagerId' });
    expect((await patch(owner, id, { ReportingManagerId: '00000000-0000-4000-8000-000000000000' })).body.error).toBe('MEMBER_NOT_FOUND');
    expect((await patch(owner, id, { Role: 'Owner' })).status).toBe(400);
    expect((await patch(owner, id, {})).status).toBe(400);
    expect((await patch(owner, id, { Role: 'Member' })).body.Role).toBe('Member');
  });

  it("protects the Owner (409 OWNER_PROTECTED) and lets only Owner or Admin act on Admins and roles", async () => {
    for (const res of [await post(owner, ownerId, 'suspend'), await post(owner, ownerId, 'revoke'), await aerie.request('DELETE', `/api/org/acme/members/${ownerId}`, { token: owner }), await patch(owner, ownerId, { Role: 'Member' })]) {
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('OWNER_PROTECTED');
    }
    // A plain member holding every member scope still cannot touch an Admin or change roles.
    const managerRole = await customRole(aerie, owner, 'acme', 'PEOPLE_OPS', ['org.member.update', 'org.member.suspend', 'org.member.list']);
    const ops = await joinOrg(aerie, owner, 'acme', 'ops@example.com', managerRole);
    const adm = await joinOrg(aerie, owner, 'acme', 'adm@example.com');
    await patch(owner, adm.id, { Role: 'Admin' });
    const other = await joinOrg(aerie, owner, 'acme', 'other@example.com');
    expect((await post(ops.token, adm.id, 'suspend')).body).toMatchObject({ error: 'PERMISSION_DENIED' });
    expect((await patch(ops.token, other.id, { Role: 'Admin' })).status).toBe(403);
    expect((await patch(ops.token, other.id, { Title: 'Analyst' })).body.Title).toBe('Analyst');
    expect((await post(ops.token, other.id, 'revoke')).body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.member.revoke' });
  });

  it('suspends: the member is refused on their next request; the session lives on; PATCH Status active restores access and roles', async () => {
    const { token, id } = await joinOrg(aerie, owner, 'acme', 'sam@example.com', 'ORG_FREELANCER');
    expect((await aerie.request('GET', '/api/org/acme', { token })).status).toBe(200);
    const res = await post(owner, id, 'suspend');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Status: 'suspended', MembershipType: 'Freelancer' });
    const next = await aerie.request('GET', '/api/org/acme/members/invitations', { token });
    expect(next.status).toBe(404);
    expect((await aerie.request('GET', '/api/org/acme', { token })).status).toBe(404);
    expect((await aerie.request('GET', '/api/v1/users/me?_t=1', { token })).status).toBe(200);
    expect((await post(owner, id, 'suspend')).body).toMatchObject({ error: 'MEMBER_NOT_ACTIVE', status: 'suspended' });
    const back = await patch(owner, id, { Status: 'active' });
    expect(back.body).toMatchObject({ Status: 'active', Roles: [expect.objectContaining({ RoleKey: 'ORG_FREELANCER' })] });
    expect((await aerie.request('GET', '/api/org/acme', { token })).status).toBe(200);
  });

  it('revokes: refused on the next request, role assignments and grants dropped; final for PATCH', async () => {
    const role = await customRole(aerie, owner, 'acme', 'LISTER', ['org.member.list']);
    const { token, id } = await joinOrg(aerie, owner, 'acme', 'rob@example.com', role);
    expect((await aerie.request('GET', '/api/org/acme/members', { token })).status).toBe(200);
    const res = await post(owner, id, 'revoke');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Status: 'revoked', Roles: [], MembershipType: 'Member' });
    expect((await aerie.request('GET', '/api/org/acme/members', { token })).status).toBe(404);
    expect(await aerie.sql('select count(*)::int as n from rbac.role_assignments where membership_id = ?', [id])).toEqual([{ n: 0 }]);
    expect((await patch(owner, id, { Status: 'active' })).body.error).toBe('MEMBER_REVOKED');
    expect((await post(owner, id, 'revoke')).status).toBe(409);
  });

  it('deletes a membership with its assignments and profile (204); the person is refused and can be invited again', async () => {
    const { token, id } = await joinOrg(aerie, owner, 'acme', 'dan@example.com', 'ORG_GUEST');
    const res = await aerie.request('DELETE', `/api/org/acme/members/${id}`, { token: owner });
    expect(res.status).toBe(204);
    expect((await aerie.request('GET', '/api/org/acme', { token })).status).toBe(404);
    expect(await aerie.sql('select count(*)::int as n from orgs.memberships where id = ?', [id])).toEqual([{ n: 0 }]);
    expect(await aerie.sql('select count(*)::int as n from rbac.role_assignments where membership_id = ?', [id])).toEqual([{ n: 0 }]);
    expect(await aerie.sql('select count(*)::int as n from members.profiles where membership_id = ?', [id])).toEqual([{ n: 0 }]);
    expect((await aerie.request('DELETE', `/api/org/acme/members/${id}`, { token: owner })).status).toBe(404);
    const again = await joinOrg(aerie, owner, 'acme', 'dan@example.com', 'ORG_GUEST');
    expect(again.id).not.toBe(id);
  });

  it('a suspended member keeps no access through grants either: scope checks never see them', async () => {
    const role = await customRole(aerie, owner, 'acme', 'INVITER', ['org.member.invite']);
    const { token, id } = await joinOrg(aerie, owner, 'acme', 'ivy@example.com', role);
    // She may only pass on what she holds: not the guest role's project scopes, but an empty role.
    const guest = await roleId(aerie, owner, 'acme', 'ORG_GUEST');
    expect((await invite(aerie, token, 'acme', { Email: 'ivy-friend@example.com', RoleId: guest })).body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.meeting.list' });
    const empty = await customRole(aerie, owner, 'acme', 'NOTHING', []);
    expect((await invite(aerie, token, 'acme', { Email: 'ivy-friend@example.com', RoleId: empty })).status).toBe(201);
    await post(owner, id, 'suspend');
    expect((await invite(aerie, token, 'acme', { Email: 'ivy-friend2@example.com', RoleId: empty })).status).toBe(404);
    // Assigning to a suspended member is refused too.
    const lister = await customRole(aerie, owner, 'acme', 'LISTER2', ['org.member.list']);
    expect((await assign(aerie, owner, 'acme', lister, id)).body).toMatchObject({ error: 'MEMBER_NOT_ACTIVE', status: 'suspended' });
  });
  it('records suspend, re-activation, revoke, delete and edits on the audit chain', async () => {
    const events = await auditEvents(aerie, { slug: 'acme' }, 'org.member.suspended', 'org.member.reactivated', 'org.member.revoked', 'org.member.deleted', 'org.member.updated');
    const types = new Set(events.map((e) => e.eventType));
    expect(types).toEqual(new Set(['org.member.suspended', 'org.member.reactivated', 'org.member.revoked', 'org.member.deleted', 'org.member.updated']));
    expect(events.find((e) => e.eventType === 'org.member.updated' && e.businessData.role === 'Admin')).toMatchObject({ businessData: { changes: expect.arrayContaining(['Role']) } });
    // Refused attempts (Owner protection, plain member on an Admin) wrote nothing for the Owner.
    expect(events.filter((e) => e.businessData.connectedIdId === ownerId)).toEqual([]);
  });
});

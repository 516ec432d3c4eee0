import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { assign, customRole, joinOrg, roleId, startMembers } from '../../helpers/org-members.ts';
import { createOrg } from '../../helpers/orgs.ts';

describe('rbac: assignments, snapshots, the guest compile table and the permission check', () => {
  let aerie: TestAerie;
  let owner: string;

  const get = (token: string, path: string) => aerie.request('GET', `/api/org/acme${path}`, { token });
  const canProject = async (token: string, id: string) => (await get(token, `/rbac-fixture/projects/${id}`)).status;
  const canMeeting = async (token: string, id: string) => (await get(token, `/rbac-fixture/meetings/${id}`)).status;

  beforeAll(async () => {
    aerie = await startMembers();
    owner = await aerie.signIn('owner@acme.example');
    await createOrg(aerie, owner, 'acme', 'Corporation');
  });
  afterAll(() => aerie?.close());

  describe('guest compile table', () => {
    it.each([
      ['PROJECT_GUEST', { project: 'P1' }, ['org.project.list:project=P1', 'org.project.read:project=P1'], { P1: 200, P2: 403 }, { M1: 403 }],
      ['PROJECT_GUEST', undefined, ['org.project.list:project=*', 'org.project.read:project=*'], { P1: 403, '*': 403 }, { M1: 403 }],
      ['MEETING_GUEST', { meeting: 'M1' }, ['org.meeting.list:meeting=M1', 'org.meeting.read:meeting=M1'], { P1: 403 }, { M1: 200, M2: 403 }],
      ['MEETING_GUEST', undefined, ['org.meeting.list:meeting=*', 'org.meeting.read:meeting=*'], { P1: 403 }, { M1: 403, '*': 403 }],
      ['ORG_GUEST', undefined, ['org.meeting.list', 'org.meeting.read', 'org.project.list', 'org.project.read'], { P1: 200, P2: 200 }, { M1: 200 }],
    ] as const)('%s with variables %j compiles to %j', async (roleKey, variables, compiled, projects, meetings) => {
      const email = `${roleKey.toLowerCase()}-${variables ? 'set' : 'unset'}@example.com`;
      const { token, id } = await joinOrg(aerie, owner, 'acme', email, 'ORG_FREELANCER');
      // Swap the invitation's role for the one under test.
      const access = (await get(owner, '/members')).body.Members.find((m: { ConnectedIdId: string }) => m.ConnectedIdId === id);
      const freelancer = access.Roles[0];
      await aerie.request('DELETE', `/api/org/acme/roles/${freelancer.RoleId}/members/${freelancer.ConnectedIdRoleId}`, { token: owner });
      const res = await assign(aerie, owner, 'acme', await roleId(aerie, owner, 'acme', roleKey), id, variables as Record<string, string> | undefined);
      expect(res.status).toBe(201);
      expect(res.body.Permissions).toEqual(compiled);
      expect(res.body.MembershipType).toBe('Guest');
      for (const [project, status] of Object.entries(projects)) expect(await canProject(token, project)).toBe(status);
      for (const [meeting, status] of Object.entries(meetings)) expect(await canMeeting(token, meeting)).toBe(status);
    });

    it('refuses a variable the role does not use (400, field Variables.<name>) and bad values', async () => {
      const { id } = await joinOrg(aerie, owner, 'acme', 'vars@example.com', 'ORG_GUEST');
      const project = await roleId(aerie, owner, 'acme', 'PROJECT_GUEST');
      expect((await assign(aerie, owner, 'acme', project, id, { meeting: 'M1' })).body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'Variables.meeting' });
      expect((await assign(aerie, owner, 'acme', project, id, { project: '*' })).status).toBe(400);
      expect((await assign(aerie, owner, 'acme', project, id, { project: 'a,b' })).status).toBe(400);
    });
  });

  describe('permission check (route scope and rbac.permissions)', () => {
    it('answers 403 PERMISSION_DENIED with errorCode and required; grants apply and disappear on the next request', async () => {
      const { token, id } = await joinOrg(aerie, owner, 'acme', 'pat@example.com', 'ORG_GUEST');
      const denied = await get(token, '/members');
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ error: 'PERMISSION_DENIED', message: expect.any(String), errorCode: 'PERMISSION_DENIED', required: 'org.member.list' });
      const lister = await customRole(aerie, owner, 'acme', 'LISTER', ['org.member.list']);
      const given = await assign(aerie, owner, 'acme', lister, id);
      expect(given.status).toBe(201);
      expect((await get(token, '/members')).status).toBe(200);
      await aerie.request('DELETE', `/api/org/acme/roles/${lister}/members/${given.body.ConnectedIdRoleId}`, { token: owner });
      expect((await get(token, '/members')).status).toBe(403);
    });

    it('Owner and Admin hold everything implicitly; a member holds the default grant (own audit entries only)', async () => {
      expect((await get(owner, '/rbac-fixture/business')).status).toBe(200);
      const { token, id } = await joinOrg(aerie, owner, 'acme', 'ada@example.com', 'ORG_GUEST');
      expect((await get(token, '/rbac-fixture/business')).body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'view.business' });
      const [{ id: accountId }] = await aerie.sql("select id from accounts.accounts where email = 'ada@example.com'");
      expect((await get(token, `/rbac-fixture/audit?actor=${accountId}`)).status).toBe(200);
      expect((await get(token, '/rbac-fixture/audit?actor=someone-else')).status).toBe(403);
      await aerie.request('PATCH', `/api/org/acme/members/${id}`, { token: owner, body: { Role: 'Admin' } });
      expect((await get(token, '/rbac-fixture/business')).status).toBe(200);
      expect((await get(token, '/rbac-fixture/audit?actor=someone-else')).status).toBe(200);
    });
  });

  describe('snapshot rule', () => {
    it('editing a role later does not change existing snapshots; assigning it again re-snapshots (same id, 200)', async () => {
      const role = await customRole(aerie, owner, 'acme', 'SNAP', ['org.member.list']);
      const { token, id } = await joinOrg(aerie, owner, 'acme', 'snap@example.com', role);
      expect((await get(token, '/members')).status).toBe(200);
      expect((await get(token, '/roles')).status).toBe(403);
      const detail = await aerie.request('GET', `/api/org/acme/roles/${role}`, { token: owner });
      await aerie.request('POST', `/api/org/acme/roles/${role}/permissions`, { token: owner, body: { Scope: 'org.role.list' } });
      await aerie.request('DELETE', `/api/org/acme/roles/${role}/permissions/${detail.body.Permissions[0].TemplateId}`, { token: owner });
      // Existing snapshot: still org.member.list, still not org.role.list.
      expect((await get(token, '/members')).status).toBe(200);
      expect((await get(token, '/roles')).status).toBe(403);
      const [before] = await aerie.sql('select id, grants from rbac.role_assignments where membership_id = ? and role_id = ?', [id, role]);
      expect(before.grants).toEqual(['org.member.list']);

      const again = await assign(aerie, owner, 'acme', role, id);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ ConnectedIdRoleId: before.id, Permissions: ['org.role.list'] });
      expect((await get(token, '/members')).status).toBe(403);
      expect((await get(token, '/roles')).status).toBe(200);
    });

    it('a deactivated role keeps its holders snapshots but cannot be assigned (409 ROLE_INACTIVE)', async () => {
      const role = await customRole(aerie, owner, 'acme', 'OLD', ['org.member.list']);
      const { token, id } = await joinOrg(aerie, owner, 'acme', 'old@example.com', role);
      await aerie.request('PUT', `/api/org/acme/roles/${role}`, { token: owner, body: { IsActive: false } });
      expect((await get(token, '/members')).status).toBe(200);
      expect((await assign(aerie, owner, 'acme', role, id)).body.error).toBe('ROLE_INACTIVE');
    });
  });

  describe('membership type', () => {
    it('is recomputed on each assignment and unassignment', async () => {
      const { id } = await joinOrg(aerie, owner, 'acme', 'types@example.com', 'MEETING_GUEST');
      const type = async () => (await get(owner, '/members')).body.Members.find((m: { ConnectedIdId: string }) => m.ConnectedIdId === id).MembershipType;
      expect(await type()).toBe('Guest');
      const freelancer = await assign(aerie, owner, 'acme', await roleId(aerie, owner, 'acme', 'ORG_FREELANCER'), id);
      expect(freelancer.body.MembershipType).toBe('Freelancer');
      const custom = await assign(aerie, owner, 'acme', await customRole(aerie, owner, 'acme', 'STAFF', []), id);
      expect(custom.body.MembershipType).toBe('Member');
      const del = await aerie.request('DELETE', `/api/org/acme/roles/${custom.body.RoleId}/members/${custom.body.ConnectedIdRoleId}`, { token: owner });
      expect(del.status).toBe(204);
      expect(await type()).toBe('Freelancer');
    });
  });

  describe('who may assign', () => {
    it('a plain member with org.role.assign passes on only scopes they hold (403 with required)', async () => {
      const assigner = await customRole(aerie, owner, 'acme', 'ASSIGNER', ['org.role.assign', 'org.member.list', 'org.project.read:project=P7', 'org.project.list:project=P7']);
      const { token } = await joinOrg(aerie, owner, 'acme', 'assigner@example.com', assigner);
      const { id } = await joinOrg(aerie, owner, 'acme', 'target@example.com', await customRole(aerie, owner, 'acme', 'EMPTY', []));
      const lister = await customRole(aerie, owner, 'acme', 'LISTER2', ['org.member.list']);
      expect((await assign(aerie, token, 'acme', lister, id)).status).toBe(201);
      const revoker = await customRole(aerie, owner, 'acme', 'REVOKER', ['org.member.revoke']);
      expect((await assign(aerie, token, 'acme', revoker, id)).body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.member.revoke' });
      const project = await roleId(aerie, owner, 'acme', 'PROJECT_GUEST');
      expect((await assign(aerie, token, 'acme', project, id, { project: 'P7' })).status).toBe(201);
      expect((await assign(aerie, token, 'acme', project, id, { project: 'P8' })).body).toMatchObject({ required: 'org.project.list:project=P8' });
    });

    it('appointing a director by assignment needs the board seal (401 STEPUP_REQUIRED) and a Corporation or Project', async () => {
      const { id } = await joinOrg(aerie, owner, 'acme', 'dir@example.com', 'ORG_GUEST');
      const director = await roleId(aerie, owner, 'acme', 'ORG_DIRECTOR');
      const res = await assign(aerie, owner, 'acme', director, id);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'STEPUP_REQUIRED', purpose: 'board.member.change' });
      await createOrg(aerie, owner, 'plain', 'Standard');
      const { id: plainMember } = await joinOrg(aerie, owner, 'plain', 'dir2@example.com', 'ORG_GUEST');
      const plain = await assign(aerie, owner, 'plain', await roleId(aerie, owner, 'plain', 'ORG_DIRECTOR'), plainMember);
      expect(plain.body).toMatchObject({ error: 'DIRECTOR_ORG_TYPE', orgType: 'Standard' });
    });
  });
});

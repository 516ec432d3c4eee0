import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { assign, customRole, invitationToken, invite, joinOrg, roleId, startMembers } from '../../helpers/org-members.ts';
import { createOrg } from '../../helpers/orgs.ts';

/**
 * Every members and rbac route, called by the Owner of `acme` with ids that belong to `globex`:
 * each answers 404 and changes nothing. And `globex`'s routes answer 404 to `acme`'s Owner.
 */
describe('members and rbac: another organization\'s ids answer 404 on every route', () => {
  let aerie: TestAerie;
  let ann: string; // Owner of acme
  const g: Record<string, string> = {}; // globex ids
  const a: Record<string, string> = {}; // acme ids

  beforeAll(async () => {
    aerie = await startMembers();
    ann = await aerie.signIn('ann@acme.example');
    const gus = await aerie.signIn('gus@globex.example');
    await createOrg(aerie, ann, 'acme');
    await createOrg(aerie, gus, 'globex');
    g.role = await customRole(aerie, gus, 'globex', 'G_ROLE', ['org.member.list']);
    g.template = (await aerie.request('GET', `/api/org/globex/roles/${g.role}`, { token: gus })).body.Permissions[0].TemplateId;
    const member = await joinOrg(aerie, gus, 'globex', 'gina@example.com', g.role);
    g.member = member.id;
    g.assignment = (await aerie.sql('select id from rbac.role_assignments where membership_id = ?', [g.member]))[0].id;
    g.invitation = (await invite(aerie, gus, 'globex', { Email: 'pending@example.com', RoleId: g.role })).body.InvitationId;
    g.guest = await roleId(aerie, gus, 'globex', 'ORG_GUEST');

    a.role = await customRole(aerie, ann, 'acme', 'A_ROLE', ['org.member.list']);
    a.template = (await aerie.request('GET', `/api/org/acme/roles/${a.role}`, { token: ann })).body.Permissions[0].TemplateId;
    a.member = (await joinOrg(aerie, ann, 'acme', 'abe@example.com', a.role)).id;
  });
  afterAll(() => aerie?.close());

  const routes = (): Array<[string, string, string, unknown?]> => [
    ['GET', 'role detail', `/api/org/acme/roles/${g.role}`],
    ['PUT', 'role update', `/api/org/acme/roles/${g.role}`, { Name: 'Stolen' }],
    ['DELETE', 'role delete', `/api/org/acme/roles/${g.role}`],
    ['POST', 'add permission to their role', `/api/org/acme/roles/${g.role}/permissions`, { Scope: 'org.member.list' }],
    ['DELETE', 'remove their template via their role', `/api/org/acme/roles/${g.role}/permissions/${g.template}`],
    ['DELETE', 'remove their template via our role', `/api/org/acme/roles/${a.role}/permissions/${g.template}`],
    ['POST', 'assign their role to our member', `/api/org/acme/roles/${g.role}/members`, { ConnectedIdId: '@a.member' }],
    ['POST', 'assign our role to their member', `/api/org/acme/roles/${a.role}/members`, { ConnectedIdId: g.member }],
    ['DELETE', 'unassign their assignment via their role', `/api/org/acme/roles/${g.role}/members/${g.assignment}`],
    ['DELETE', 'unassign their assignment via our role', `/api/org/acme/roles/${a.role}/members/${g.assignment}`],
    ['POST', 'invite with their role', '/api/org/acme/members/invite', { Email: 'x@example.com', RoleId: g.role }],
    ['POST', 'invite with their preset', '/api/org/acme/members/invite', { Email: 'x@example.com', RoleId: g.guest }],
    ['POST', 'invite reporting to their member', '/api/org/acme/members/invite', { Email: 'y@example.com', RoleId: '@a.role', ReportingManagerId: g.member }],
    ['POST', 'resend their invitation', '/api/org/acme/members/invite/resend', { InvitationId: g.invitation }],
    ['POST', 'resend their invitation by email', '/api/org/acme/members/invite/resend', { Email: 'pending@example.com' }],
    ['DELETE', 'cancel their invitation', `/api/org/acme/members/invite/${g.invitation}`],
    ['PATCH', 'edit their member', `/api/org/acme/members/${g.member}`, { Title: 'Mole' }],
    ['PATCH', 'point our member at their manager', '/api/org/acme/members/@a.member', { ReportingManagerId: g.member }],
    ['POST', 'suspend their member', `/api/org/acme/members/${g.member}/suspend`],
    ['POST', 'revoke their member', `/api/org/acme/members/${g.member}/revoke`],
    ['DELETE', 'delete their member', `/api/org/acme/members/${g.member}`],
  ];

  it('answers 404 for each route with the other organization\'s ids, and nothing of globex changes', async () => {
    const snapshot = () => Promise.all([
      aerie.sql("select * from rbac.roles r join orgs.organizations o on o.id = r.org_id where o.slug = 'globex' order by r.id"),
      aerie.sql("select t.* from rbac.permission_templates t join orgs.organizations o on o.id = t.org_id where o.slug = 'globex' order by t.id"),
      aerie.sql("select a.* from rbac.role_assignments a join orgs.organizations o on o.id = a.org_id where o.slug = 'globex' order by a.id"),
      aerie.sql("select m.* from orgs.memberships m join orgs.organizations o on o.id = m.org_id where o.slug = 'globex' order by m.id"),
      aerie.sql("select i.* from members.invitations i join orgs.organizations o on o.id = i.org_id where o.slug = 'globex' order by i.id"),
    ]);
    const before = await snapshot();
    for (const [method, label, rawPath, rawBody] of routes()) {
      const fill = (s: string) => s.replace('@a.member', a.member).replace('@a.role', a.role);
      const body = rawBody ? JSON.parse(fill(JSON.stringify(rawBody))) : undefined;
      const res = await aerie.request(method, fill(rawPath), { token: ann, body });
      expect([label, res.status]).toEqual([label, 404]);
      expect(res.body.error).toMatch(/NOT_FOUND$/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("answers 404 on every route of an organization the caller is not a member of", async () => {
    const paths: Array<[string, string, unknown?]> = [
      ['GET', '/api/org/globex/roles'], ['GET', '/api/org/globex/roles/scopes'], ['GET', '/api/org/globex/roles/sod-report'],
      ['POST', '/api/org/globex/roles', { Name: 'X', RoleKey: 'XX' }], ['GET', `/api/org/globex/roles/${g.role}`],
      ['POST', `/api/org/globex/roles/${g.role}/members`, { ConnectedIdId: g.member }],
      ['GET', '/api/org/globex/members'], ['GET', '/api/org/globex/members/invitations'],
      ['POST', '/api/org/globex/members/invite', { Email: 'z@example.com', RoleId: g.role }],
      ['POST', `/api/org/globex/members/${g.member}/suspend`],
    ];
    for (const [method, path, body] of paths) {
      const res = await aerie.request(method, path, { token: ann, body });
      expect([path, res.status]).toEqual([path, 404]);
    }
  });

  it('lists only the organization\'s own members, invitations and roles', async () => {
    const members = await aerie.request('GET', '/api/org/acme/members', { token: ann });
    expect(members.body.Members.map((m: { Email: string }) => m.Email).sort()).toEqual(['abe@example.com', 'ann@acme.example']);
    const invitations = await aerie.request('GET', '/api/org/acme/members/invitations', { token: ann });
    expect(invitations.body.Invitations.map((i: { Email: string }) => i.Email)).toEqual(['abe@example.com']);
    const roles = await aerie.request('GET', '/api/org/acme/roles', { token: ann });
    expect(roles.body.Roles.map((r: { RoleId: string }) => r.RoleId)).not.toContain(g.role);
  });

  it("an invitation token of globex joins globex only, whoever's session carries it", async () => {
    const res = await invite(aerie, ann, 'acme', { Email: 'both@example.com', RoleId: a.role });
    expect(res.status).toBe(201);
    const both = await aerie.signIn('both@example.com');
    const accepted = await aerie.request('POST', '/api/org/invitation/accept', { token: both, body: { Token: invitationToken(aerie, 'both@example.com') } });
    expect(accepted.body.Organization.slug).toBe('acme');
    expect((await aerie.request('GET', '/api/org/globex', { token: both })).status).toBe(404);
    expect((await assign(aerie, ann, 'acme', a.role, accepted.body.Member.ConnectedIdId)).status).toBe(200);
  });
});

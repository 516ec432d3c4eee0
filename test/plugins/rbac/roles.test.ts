import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { presetRoleId } from '../../../plugins/rbac/presets.ts';
import { customRole, joinOrg, rolesByKey, startMembers } from '../../helpers/org-members.ts';
import { createOrg } from '../../helpers/orgs.ts';

const PRESETS: Record<string, string[]> = {
  ORG_DIRECTOR: ['org.meeting.list', 'org.meeting.read', 'view.business'],
  REPRESENTATIVE_DIRECTOR: ['org.meeting.list', 'org.meeting.read', 'view.business'],
  ORG_GUEST: ['org.meeting.list', 'org.meeting.read', 'org.project.list', 'org.project.read'],
  ORG_FREELANCER: ['org.project.list', 'org.project.read'],
  PROJECT_GUEST: ['org.project.list:project={project}', 'org.project.read:project={project}'],
  MEETING_GUEST: ['org.meeting.list:meeting={meeting}', 'org.meeting.read:meeting={meeting}'],
};

describe('rbac: preset roles, role CRUD and the scope catalog', () => {
  let aerie: TestAerie;
  let owner: string;
  let orgId: string;

  const add = (roleId: string, Scope: string, token = owner) => aerie.request('POST', `/api/org/acme/roles/${roleId}/permissions`, { token, body: { Scope } });

  beforeAll(async () => {
    aerie = await startMembers();
    owner = await aerie.signIn('owner@acme.example');
    orgId = await createOrg(aerie, owner, 'acme');
  });
  afterAll(() => aerie?.close());

  it('creates the six presets with every organization, in its creation transaction, with fixed ids', async () => {
    const rows = await aerie.sql('select id, role_key, is_preset from rbac.roles where org_id = ? order by role_key', [orgId]);
    expect(rows.map((r) => r.role_key)).toEqual(Object.keys(PRESETS).sort());
    for (const r of rows) expect(r).toMatchObject({ id: presetRoleId(orgId, r.role_key), is_preset: true });
    const roles = await rolesByKey(aerie, owner, 'acme');
    for (const [key, scopes] of Object.entries(PRESETS)) {
      expect(roles[key].Permissions.map((p: { Scope: string }) => p.Scope).sort()).toEqual([...scopes].sort());
      expect(roles[key]).toMatchObject({ IsPreset: true, IsActive: true });
    }
    expect(roles.PROJECT_GUEST.Variables).toEqual(['project']);
    expect(roles.MEETING_GUEST.Variables).toEqual(['meeting']);
  });

  it('creates presets on first use for an organization that existed before rbac', async () => {
    const id = randomUUID();
    const [{ id: accountId }] = await aerie.sql("select id from accounts.accounts where email = 'owner@acme.example'");
    await aerie.sql("insert into orgs.organizations (id, slug, name, type, plan_key, created_by, created_at, updated_at) values (?, 'old-co', 'Old', 'Standard', 'Free', ?, now(), now())", [id, accountId]);
    await aerie.sql("insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at) values (?, ?, ?, 'Owner', 'active', now(), now())", [randomUUID(), id, accountId]);
    expect(await aerie.sql('select count(*)::int as n from rbac.roles where org_id = ?', [id])).toEqual([{ n: 0 }]);
    const roles = await rolesByKey(aerie, owner, 'old-co');
    expect(Object.keys(roles).sort()).toEqual(Object.keys(PRESETS).sort());
    expect(roles.ORG_DIRECTOR.RoleId).toBe(presetRoleId(id, 'ORG_DIRECTOR'));
    expect(await aerie.sql('select count(*)::int as n from rbac.permission_templates where org_id = ?', [id])).toEqual([{ n: 16 }]);
  });

  it('keeps presets fixed: permissions, key and existence (409 PRESET_ROLE); name and active state are editable', async () => {
    const guest = presetRoleId(orgId, 'ORG_GUEST');
    expect((await add(guest, 'org.member.list')).body).toMatchObject({ error: 'PRESET_ROLE', roleKey: 'ORG_GUEST' });
    const [template] = (await rolesByKey(aerie, owner, 'acme')).ORG_GUEST.Permissions;
    expect((await aerie.request('DELETE', `/api/org/acme/roles/${guest}/permissions/${template.TemplateId}`, { token: owner })).status).toBe(409);
    expect((await aerie.request('DELETE', `/api/org/acme/roles/${guest}`, { token: owner })).status).toBe(409);
    expect((await aerie.request('PUT', `/api/org/acme/roles/${guest}`, { token: owner, body: { RoleKey: 'VISITOR' } })).body.error).toBe('PRESET_ROLE');
    const renamed = await aerie.request('PUT', `/api/org/acme/roles/${guest}`, { token: owner, body: { Name: 'Visitor', IsActive: false } });
    expect(renamed.body).toMatchObject({ Name: 'Visitor', RoleKey: 'ORG_GUEST', IsActive: false });
    const active = await aerie.request('GET', '/api/org/acme/roles', { token: owner });
    expect(active.body.Roles.map((r: { RoleKey: string }) => r.RoleKey)).not.toContain('ORG_GUEST');
    const all = await aerie.request('GET', '/api/org/acme/roles?includeInactive=true', { token: owner });
    expect(all.body.Roles.map((r: { RoleKey: string }) => r.RoleKey)).toContain('ORG_GUEST');
    await aerie.request('PUT', `/api/org/acme/roles/${guest}`, { token: owner, body: { Name: 'Guest', IsActive: true } });
  });

  it('creates, reads, updates and deletes a custom role', async () => {
    const created = await aerie.request('POST', '/api/org/acme/roles', { token: owner, body: { Name: ' Auditor ', RoleKey: 'AUDITOR', Description: 'Reads logs', RequiresApproval: true } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ Name: 'Auditor', RoleKey: 'AUDITOR', Description: 'Reads logs', RequiresApproval: true, IsPreset: false, IsActive: true, Permissions: [] });
    expect(created.headers.get('location')).toBe(`/api/org/acme/roles/${created.body.RoleId}`);
    const id = created.body.RoleId;
    expect((await aerie.request('GET', `/api/org/acme/roles/${id}`, { token: owner })).body.RoleKey).toBe('AUDITOR');
    const updated = await aerie.request('PUT', `/api/org/acme/roles/${id}`, { token: owner, body: { RoleKey: 'LOG_AUDITOR', RequiresApproval: false } });
    expect(updated.body).toMatchObject({ RoleKey: 'LOG_AUDITOR', RequiresApproval: false, Name: 'Auditor' });
    expect((await aerie.request('DELETE', `/api/org/acme/roles/${id}`, { token: owner })).status).toBe(204);
    expect((await aerie.request('GET', `/api/org/acme/roles/${id}`, { token: owner })).body.error).toBe('ROLE_NOT_FOUND');
  });

  it.each([
    ['a preset key', { Name: 'X', RoleKey: 'ORG_GUEST' }, 400, 'ROLE_KEY_RESERVED'],
    ['an agent key', { Name: 'X', RoleKey: 'AGENT_RESEARCH' }, 400, 'ROLE_KEY_RESERVED'],
    ['a lowercase key', { Name: 'X', RoleKey: 'auditor' }, 400, 'VALIDATION_FAILED'],
    ['a blank name', { Name: '  ', RoleKey: 'BLANK' }, 400, 'VALIDATION_FAILED'],
    ['an unknown field', { Name: 'X', RoleKey: 'EXTRA', Level: 3 }, 400, 'VALIDATION_FAILED'],
  ])('refuses to create a role with %s', async (_label, body, status, code) => {
    const res = await aerie.request('POST', '/api/org/acme/roles', { token: owner, body });
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
  });

  it('refuses a taken key (409 ROLE_KEY_TAKEN) and deleting a held role (409 ROLE_IN_USE)', async () => {
    const id = await customRole(aerie, owner, 'acme', 'HELD', ['org.member.list']);
    expect((await aerie.request('POST', '/api/org/acme/roles', { token: owner, body: { Name: 'Y', RoleKey: 'HELD' } })).body.error).toBe('ROLE_KEY_TAKEN');
    await joinOrg(aerie, owner, 'acme', 'holder@example.com', id);
    const res = await aerie.request('DELETE', `/api/org/acme/roles/${id}`, { token: owner });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'ROLE_IN_USE', assignments: 1 });
  });

  it('publishes the scope catalog of the enabled plugins, without scopes outside the org whitelist', async () => {
    const res = await aerie.request('GET', '/api/org/acme/roles/scopes', { token: owner });
    expect(res.status).toBe(200);
    const scopes = res.body.Scopes.map((s: { Scope: string }) => s.Scope);
    expect(scopes).toEqual(expect.arrayContaining(['org.member.invite', 'org.member.revoke', 'org.role.assign', 'org.permission.create', 'org.audit_event_log.list', 'org.project.read', 'view.business']));
    expect(scopes).not.toContain('org.spaceship.launch');
    expect(res.body.Scopes.find((s: { Scope: string }) => s.Scope === 'org.member.invite').Plugin).toBe('members');
  });

  it.each([
    ['a declared scope', 'org.member.list', 201, 'org.member.list'],
    ['a constrained scope', 'org.project.read:project=P1', 201, 'org.project.read'],
    ['a template with a variable', 'org.project.update:project={project}', 201, 'org.project.update'],
    ['a wildcard over declared scopes', 'org.meeting.*', 201, 'org.meeting.*'],
    ['another namespace', 'view.business', 201, 'view.business'],
    ['an undeclared scope', 'org.member.teleport', 400, 'UNKNOWN_SCOPE'],
    ['an undeclared namespace', 'billing.card.charge', 400, 'UNKNOWN_SCOPE'],
    ['a wildcard over nothing declared', 'org.team.*', 400, 'UNKNOWN_SCOPE'],
    ['a resource off the whitelist', 'org.spaceship.launch', 400, 'SCOPE_NOT_ALLOWED'],
    ['everything', '*', 400, 'SCOPE_NOT_ALLOWED'],
    ['the whole org namespace', 'org.*', 400, 'SCOPE_NOT_ALLOWED'],
    ['bad syntax', 'org..member', 400, 'INVALID_SCOPE'],
    ['a duplicate constraint key', 'org.project.read:project=1,project=2', 400, 'INVALID_SCOPE'],
  ])('adding %s (%s) answers %i', async (_label, scope, status, expected) => {
    const role = await customRole(aerie, owner, 'acme', `R_${randomUUID().slice(0, 8).toUpperCase()}`, []);
    const res = await add(role, scope);
    expect(res.status).toBe(status);
    if (status === 201) expect(res.body).toMatchObject({ Scope: scope, BaseScope: expected });
    else expect(res.body.error).toBe(expected);
  });

  it('refuses a duplicate permission (409 PERMISSION_EXISTS) and removes one (204)', async () => {
    const role = await customRole(aerie, owner, 'acme', 'DUP', ['org.member.list']);
    expect((await add(role, 'org.member.list')).body.error).toBe('PERMISSION_EXISTS');
    const detail = await aerie.request('GET', `/api/org/acme/roles/${role}`, { token: owner });
    const res = await aerie.request('DELETE', `/api/org/acme/roles/${role}/permissions/${detail.body.Permissions[0].TemplateId}`, { token: owner });
    expect(res.status).toBe(204);
    expect((await aerie.request('GET', `/api/org/acme/roles/${role}`, { token: owner })).body.Permissions).toEqual([]);
  });

  it('lets a plain member with role scopes add only permissions they hold (403 PERMISSION_DENIED with required)', async () => {
    const admin = await customRole(aerie, owner, 'acme', 'ROLE_ADMIN', ['org.role.create', 'org.permission.create', 'org.member.list', 'org.role.list']);
    const { token } = await joinOrg(aerie, owner, 'acme', 'roles@example.com', admin);
    const made = await aerie.request('POST', '/api/org/acme/roles', { token, body: { Name: 'Mine', RoleKey: 'MINE' } });
    expect(made.status).toBe(201);
    expect((await add(made.body.RoleId, 'org.member.list', token)).status).toBe(201);
    const denied = await add(made.body.RoleId, 'org.member.revoke', token);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'PERMISSION_DENIED', errorCode: 'PERMISSION_DENIED', required: 'org.member.revoke' });
    expect((await aerie.request('DELETE', `/api/org/acme/roles/${made.body.RoleId}`, { token })).body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.role.delete' });
  });
});

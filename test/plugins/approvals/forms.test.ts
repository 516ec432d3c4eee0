import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { roleId } from '../../helpers/org-members.ts';
import { createForm, orgWithPeople, position, type PeopleOrg } from './approval-helpers.ts';

describe('approvals: forms and approval lines (docs/api/approvals.md)', () => {
  let aerie: TestAerie;
  let acme: PeopleOrg;
  let other: PeopleOrg;
  let managerRole: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    const owner = await aerie.signIn('olga@owner.test');
    acme = await orgWithPeople(aerie, owner, 'acme', ['ann', 'bob']);
    other = await orgWithPeople(aerie, await aerie.signIn('oscar@owner.test'), 'other', ['zed']);
    managerRole = await roleId(aerie, owner, 'acme', 'ORG_GUEST');
  });
  afterAll(() => aerie?.close());

  const url = (org: PeopleOrg, rest = '') => `/api/org/${org.slug}/approvals/work-items${rest}`;

  it('creates a form of each kind (201, audited) and lists and reads them', async () => {
    const res = await aerie.request('POST', url(acme), { token: acme.owner, body: { docType: 'document', title: ' Budget ', description: 'Q3' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ docType: 'document', title: 'Budget', description: 'Q3', linkedRoleId: null });
    const perm = await createForm(aerie, acme, { docType: 'permission', title: 'Access', linkedRoleId: managerRole });
    const report = await createForm(aerie, acme, { docType: 'report', title: 'Weekly' });
    const list = await aerie.request('GET', url(acme), { token: acme.tokens.ann });
    expect(list.status).toBe(200);
    expect(list.body.workItems.map((f: { id: string }) => f.id)).toEqual([res.body.id, perm, report]);
    const one = await aerie.request('GET', url(acme, `/${perm}`), { token: acme.tokens.bob });
    expect(one.body).toMatchObject({ id: perm, docType: 'permission', linkedRoleId: managerRole });
    expect((await auditEvents(aerie, acme, 'approval.form.created')).map((e) => e.businessData.docType)).toEqual(['document', 'permission', 'report']);
  });

  const NIL = '00000000-0000-4000-8000-000000000000';
  it.each([
    ['a permission form with neither a role nor a scope', { docType: 'permission', title: 'x' }, 400, 'VALIDATION_FAILED', 'linkedRoleId'],
    ['a permission form with both a role and a scope', { docType: 'permission', title: 'x', linkedRoleId: NIL, linkedPermissionScope: 'org.team.list' }, 400, 'VALIDATION_FAILED', 'linkedPermissionScope'],
    ['a document form with a role', { docType: 'document', title: 'x', linkedRoleId: NIL }, 400, 'VALIDATION_FAILED', 'linkedRoleId'],
    ['a document form with a scope', { docType: 'document', title: 'x', linkedPermissionScope: 'org.team.list' }, 400, 'VALIDATION_FAILED', 'linkedPermissionScope'],
    ['a report form with a scope', { docType: 'report', title: 'x', linkedPermissionScope: 'org.team.list' }, 400, 'VALIDATION_FAILED', 'linkedPermissionScope'],
    ['a scope outside the catalog', { docType: 'permission', title: 'x', linkedPermissionScope: 'org.team.fly' }, 400, 'VALIDATION_FAILED', 'linkedPermissionScope'],
    ['a resource roles may not carry', { docType: 'permission', title: 'x', linkedPermissionScope: 'org.everything.read' }, 400, 'VALIDATION_FAILED', 'linkedPermissionScope'],
    ['a wildcard scope', { docType: 'permission', title: 'x', linkedPermissionScope: 'org.team.*' }, 400, 'VALIDATION_FAILED', 'linkedPermissionScope'],
    ['"everything"', { docType: 'permission', title: 'x', linkedPermissionScope: '*' }, 400, 'VALIDATION_FAILED', 'linkedPermissionScope'],
    ['a constrained scope', { docType: 'permission', title: 'x', linkedPermissionScope: 'org.team.list:team=t1' }, 400, 'VALIDATION_FAILED', 'linkedPermissionScope'],
    ['an empty scope', { docType: 'permission', title: 'x', linkedPermissionScope: '' }, 400, 'VALIDATION_FAILED', undefined],
    ['an unknown role', { docType: 'permission', title: 'x', linkedRoleId: NIL }, 404, 'ROLE_NOT_FOUND', 'linkedRoleId'],
    ['an unknown kind', { docType: 'memo', title: 'x' }, 400, 'VALIDATION_FAILED', undefined],
  ])('refuses %s and writes nothing', async (_l, body, status, code, field) => {
    const count = 'select (select count(*) from approvals.work_items)::int as forms, (select count(*) from rbac.roles)::int as roles';
    const before = await aerie.sql(count);
    const res = await aerie.request('POST', url(acme), { token: acme.owner, body });
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
    if (field) expect(res.body.field).toBe(field);
    expect(await aerie.sql(count)).toEqual(before);
  });

  it('creates a permission form granting one scope (linkedPermissionScope), backed by a role carrying exactly that scope', async () => {
    const res = await aerie.request('POST', url(acme), { token: acme.owner, body: { docType: 'permission', title: 'Team list', linkedPermissionScope: 'org.team.list' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ docType: 'permission', linkedRoleId: null, linkedPermissionScope: 'org.team.list' });
    expect((await aerie.request('GET', url(acme, `/${res.body.id}`), { token: acme.tokens.ann })).body.linkedPermissionScope).toBe('org.team.list');
    const [event] = (await auditEvents(aerie, acme, 'approval.form.created')).filter((e) => e.businessData.workItemId === res.body.id);
    expect(event.businessData).toMatchObject({ docType: 'permission', linkedRoleId: null, linkedPermissionScope: 'org.team.list' });
    const role = await aerie.request('GET', `/api/org/acme/roles/${event.businessData.grantRoleId}`, { token: acme.owner });
    expect(role.status).toBe(200);
    expect(role.body).toMatchObject({ RoleKey: `APPROVAL_${res.body.id.replaceAll('-', '').toUpperCase()}`, Name: 'Approval grant: org.team.list' });
    expect(role.body.Permissions.map((p: { Scope: string }) => p.Scope)).toEqual(['org.team.list']);
  });

  it('lets only the Owner or an Admin create forms and read or replace lines (403 PERMISSION_DENIED)', async () => {
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Lines' });
    expect((await aerie.request('POST', url(acme), { token: acme.tokens.ann, body: { docType: 'document', title: 'x' } })).body.error).toBe('PERMISSION_DENIED');
    expect((await aerie.request('GET', url(acme, `/${form}/approval-line`), { token: acme.tokens.ann })).status).toBe(403);
    const put = await aerie.request('PUT', url(acme, `/${form}/approval-line`), { token: acme.tokens.ann, body: { positions: [] } });
    expect(put.status).toBe(403);
  });

  it('replaces the line as a whole, keeps the order, emits reporting.approvalline.changed', async () => {
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Ordered' });
    expect((await aerie.request('GET', url(acme, `/${form}/approval-line`), { token: acme.owner })).body).toEqual({ workItemId: form, positions: [] });
    const positions = [
      position('Staff', 'drafter'),
      position('Manager', 'role', { resolveRoleId: managerRole, resolveMemberConnectedId: acme.ids.bob }),
      position('Fixed', 'member', { resolveMemberConnectedId: acme.ids.ann }),
    ];
    const put = await aerie.request('PUT', url(acme, `/${form}/approval-line`), { token: acme.owner, body: { positions } });
    expect(put.status).toBe(200);
    const expected = positions.map((p) => ({ resolveRoleId: null, resolveMemberConnectedId: null, ...p }));
    expect(put.body).toEqual({ workItemId: form, positions: expected });
    expect((await aerie.request('GET', url(acme, `/${form}/approval-line`), { token: acme.owner })).body.positions).toEqual(expected);
    const again = await aerie.request('PUT', url(acme, `/${form}/approval-line`), { token: acme.owner, body: { positions: [positions[2]] } });
    expect(again.body.positions).toEqual([expected[2]]);
    const events = await auditEvents(aerie, acme, 'reporting.approvalline.changed');
    expect(events.slice(-2).map((e) => [e.businessData.workItemId, e.businessData.previousCount, e.businessData.positions.length])).toEqual([[form, 0, 3], [form, 3, 1]]);
  });

  it.each([
    ['a role position without a role', [position('R', 'role')], 400, 'VALIDATION_FAILED', 'positions[0].resolveRoleId'],
    ['a member position without a member', [position('M', 'member')], 400, 'VALIDATION_FAILED', 'positions[0].resolveMemberConnectedId'],
    ['a drafter naming a member', [position('D', 'drafter', { resolveMemberConnectedId: '00000000-0000-4000-8000-000000000000' })], 400, 'VALIDATION_FAILED', 'positions[0].resolveMemberConnectedId'],
    ['an unknown member', [position('M', 'member', { resolveMemberConnectedId: '00000000-0000-4000-8000-000000000000' })], 404, 'MEMBER_NOT_FOUND', 'positions[0].resolveMemberConnectedId'],
    ['an unknown role', [position('R', 'role', { resolveRoleId: '00000000-0000-4000-8000-000000000000' })], 404, 'ROLE_NOT_FOUND', 'positions[0].resolveRoleId'],
  ])('refuses %s and keeps the old line', async (_l, positions, status, code, field) => {
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Bad' });
    const res = await aerie.request('PUT', url(acme, `/${form}/approval-line`), { token: acme.owner, body: { positions } });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: code, field });
    expect(await aerie.sql('select count(*)::int as n from approvals.line_positions where work_item_id = ?', [form])).toEqual([{ n: 0 }]);
  });

  it("answers 404 for another organization's forms, roles and members on every form route, and changes nothing", async () => {
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Mine' });
    const theirs = await createForm(aerie, other, { docType: 'document', title: 'Theirs' });
    for (const rest of [`/${theirs}`, `/${theirs}/approval-line`, `/${theirs}/resolve-line`]) {
      const res = await aerie.request('GET', url(acme, rest), { token: acme.owner });
      expect([rest, res.status, res.body.error]).toEqual([rest, 404, 'FORM_NOT_FOUND']);
    }
    const put = await aerie.request('PUT', url(acme, `/${theirs}/approval-line`), { token: acme.owner, body: { positions: [] } });
    expect(put.body.error).toBe('FORM_NOT_FOUND');
    const foreignMember = await aerie.request('PUT', url(acme, `/${form}/approval-line`), { token: acme.owner, body: { positions: [position('M', 'member', { resolveMemberConnectedId: other.ids.zed })] } });
    expect(foreignMember.body.error).toBe('MEMBER_NOT_FOUND');
    const otherRole = await roleId(aerie, other.owner, 'other', 'ORG_GUEST');
    const foreignRole = await aerie.request('POST', url(acme), { token: acme.owner, body: { docType: 'permission', title: 'x', linkedRoleId: otherRole } });
    expect(foreignRole.body.error).toBe('ROLE_NOT_FOUND');
    expect((await aerie.request('GET', url(other), { token: acme.owner })).status).toBe(404);
    expect((await aerie.request('GET', url(acme), { token: other.owner })).status).toBe(404);
  });
});

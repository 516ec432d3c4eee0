import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { assign, customRole } from '../../helpers/org-members.ts';
import type { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { createForm, orgWithPeople, position, setLine, signStamp, stamp, submit, withPasskey, type PeopleOrg } from './approval-helpers.ts';

/**
 * Permission forms that grant one scope (`linkedPermissionScope`, spec 02 "Approval form line and
 * instance"): the binding's `grant` entry, the grant on final approval and on rule 1's auto-grant,
 * both through rbac's assignment path with separation of duties.
 */
describe('approvals: permission forms granting linkedPermissionScope (docs/api/approvals.md "Forms")', () => {
  let aerie: TestAerie;
  let acme: PeopleOrg;
  const auth: Record<string, SoftAuthenticator> = {};

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await orgWithPeople(aerie, await aerie.signIn('olga@owner.test'), 'acme', ['ann', 'bob', 'sam']);
    for (const who of ['ann', 'bob', 'sam']) auth[who] = await withPasskey(aerie, acme.tokens[who]);
  });
  afterAll(() => aerie?.close());

  /** A scope form approved by Bob (or by nobody: rule 1). */
  const scopeForm = async (scope: string, approver: string | null = acme.ids.bob) => {
    const id = await createForm(aerie, acme, { docType: 'permission', title: `Grant ${scope}`, linkedPermissionScope: scope });
    await setLine(aerie, acme, id, [approver ? position('Approver', 'member', { resolveMemberConnectedId: approver }) : position('Staff', 'drafter')]);
    const [{ grant_role_id: roleId }] = await aerie.sql('select grant_role_id from approvals.work_items where id = ?', [id]);
    return { id, roleId: roleId as string };
  };
  const grantsOf = async (membershipId: string, roleId: string) =>
    (await aerie.sql('select grants from rbac.role_assignments where membership_id = ? and role_id = ?', [membershipId, roleId])).map((r) => r.grants);

  it('binds the scope as the one grant entry and grants it to the requester on the last approval', async () => {
    const form = await scopeForm('org.team.list');
    const doc = await submit(aerie, 'acme', acme.tokens.ann, auth.ann, { WorkItemId: form.id, Title: 'Team list please', Body: '' });
    expect(doc.status).toBe(201);
    expect(doc.body).toMatchObject({ Status: 'pending', LinkedRoleId: null, LinkedPermissionScope: 'org.team.list' });
    const signed = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.body.InstanceId);
    expect(signed.binding.fields.filter((f: { key: string }) => f.key === 'grant')).toEqual([{ key: 'grant', value: 'org.team.list' }]);
    const rejectOptions = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.body.InstanceId, 'no');
    expect(rejectOptions.binding.fields.some((f: { key: string }) => f.key === 'grant')).toBe(false);
    expect(await grantsOf(acme.ids.ann, form.roleId)).toEqual([]);
    expect((await aerie.request('GET', '/api/org/acme/teams', { token: acme.tokens.ann })).status).toBe(403);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.body.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(signed.assertion) });
    expect(res.status).toBe(200);
    expect(res.body.Status).toBe('approved');
    expect(await grantsOf(acme.ids.ann, form.roleId)).toEqual([['org.team.list']]);
    const [assigned] = (await auditEvents(aerie, acme, 'org.role.assigned')).filter((e) => e.businessData.roleId === form.roleId);
    expect(assigned.businessData).toMatchObject({ connectedIdId: acme.ids.ann, permissions: ['org.team.list'] });
    // Ann now holds the scope: the route it guards answers her.
    expect((await aerie.request('GET', '/api/org/acme/teams', { token: acme.tokens.ann })).status).toBe(200);
  });

  it('refuses the stamp when the backing role was given another scope after signing (grant)', async () => {
    const form = await scopeForm('org.board.read');
    const doc = await submit(aerie, 'acme', acme.tokens.ann, auth.ann, { WorkItemId: form.id, Title: 'Board', Body: '' });
    const signed = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.body.InstanceId);
    const added = await aerie.request('POST', `/api/org/acme/roles/${form.roleId}/permissions`, { token: acme.owner, body: { Scope: 'org.team.list' } });
    expect(added.status).toBe(201);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.body.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(signed.assertion) });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: ['grant'] });
    expect(await grantsOf(acme.ids.ann, form.roleId)).toEqual([]);
  });

  it('rule 1: zero approvers grant the scope at once to a human requester', async () => {
    const form = await scopeForm('org.member.list', null);
    const res = await submit(aerie, 'acme', acme.tokens.ann, auth.ann, { WorkItemId: form.id, Title: 'Directory', Body: '' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ Status: 'approved', Steps: [], LinkedPermissionScope: 'org.member.list' });
    expect(await grantsOf(acme.ids.ann, form.roleId)).toEqual([['org.member.list']]);
  });

  it('applies separation of duties: 403 SOD_CONFLICT, auth.sod.assignment_blocked recorded, nothing granted or stamped', async () => {
    const inviter = await customRole(aerie, acme.owner, 'acme', 'INVITER', ['org.member.invite']);
    expect((await assign(aerie, acme.owner, 'acme', inviter, acme.ids.sam)).status).toBe(201);
    const form = await scopeForm('org.member.revoke');
    const doc = await submit(aerie, 'acme', acme.tokens.sam, auth.sam, { WorkItemId: form.id, Title: 'Revoke rights', Body: '' });
    const signed = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.body.InstanceId);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.body.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(signed.assertion) });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'SOD_CONFLICT', pair: { a: 'org.member.invite', b: 'org.member.revoke' } });
    const blocked = (await auditEvents(aerie, acme, 'auth.sod.assignment_blocked')).filter((e) => e.businessData.roleId === form.roleId);
    expect(blocked.map((e) => e.businessData.connectedIdId)).toEqual([acme.ids.sam]);
    expect(await grantsOf(acme.ids.sam, form.roleId)).toEqual([]);
    expect((await aerie.sql('select status from approvals.steps where instance_id = ?', [doc.body.InstanceId])).map((r) => r.status)).toEqual(['pending']);

    // Rule 1's auto-grant is refused the same way, and the submit is rolled back.
    const auto = await scopeForm('org.member.revoke', null);
    const before = await aerie.sql('select count(*)::int as n from approvals.instances');
    const refused = await submit(aerie, 'acme', acme.tokens.sam, auth.sam, { WorkItemId: auto.id, Title: 'Again', Body: '' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('SOD_CONFLICT');
    expect((await auditEvents(aerie, acme, 'auth.sod.assignment_blocked')).some((e) => e.businessData.roleId === auto.roleId)).toBe(true);
    expect(await aerie.sql('select count(*)::int as n from approvals.instances')).toEqual(before);
  });
});

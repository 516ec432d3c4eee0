import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { assign, customRole, invite, joinOrg, startMembers } from '../../helpers/org-members.ts';
import { createOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

/** The spec's forbidden pairs. @see docs/api/roles.md */
const PAIRS = [
  ['org.permission.create', 'org.audit_event_log.delete'],
  ['org.role.assign', 'org.audit_event_log.delete'],
  ['org.reporting_instance.create', 'org.reporting_instance.approval_step.update'],
  ['org.member.invite', 'org.member.revoke'],
] as const;

describe('rbac: separation of duties', () => {
  let aerie: TestAerie;
  let owner: string;
  let empty: string;
  let n = 0;

  const role = (scopes: string[]) => customRole(aerie, owner, 'acme', `SOD_${++n}`, scopes);
  const fresh = async () => joinOrg(aerie, owner, 'acme', `m${++n}@example.com`, empty);
  const assignments = async (id: string) => (await aerie.sql('select role_id from rbac.role_assignments where membership_id = ?', [id])).map((r) => r.role_id);

  beforeAll(async () => {
    aerie = await startMembers();
    owner = await aerie.signIn('owner@acme.example');
    await createOrg(aerie, owner, 'acme');
    empty = await customRole(aerie, owner, 'acme', 'EMPTY', []);
  });
  afterAll(() => aerie?.close());

  it.each(PAIRS)('refuses %s joined to %s across two roles (403 SOD_CONFLICT naming the pair) and keeps nothing of it', async (a, b) => {
    const { id } = await fresh();
    const first = await role([a]);
    const second = await role([b]);
    expect((await assign(aerie, owner, 'acme', first, id)).status).toBe(201);
    const res = await assign(aerie, owner, 'acme', second, id);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'SOD_CONFLICT', pair: { a, b }, conflicts: [{ a, b, introduced: true }] });
    expect(res.body.message).toContain(a);
    expect(await assignments(id)).not.toContain(second);
    // The refusal is sealed although the assignment rolled back; the assignment itself left no event.
    const blocked = (await auditEvents(aerie, { slug: 'acme' }, 'auth.sod.assignment_blocked')).filter((e) => e.businessData.connectedIdId === id);
    expect(blocked).toEqual([expect.objectContaining({ actorType: 'account', businessData: expect.objectContaining({ roleId: second, pairs: [{ a, b, introduced: true }] }) })]);
    expect((await auditEvents(aerie, { slug: 'acme' }, 'org.role.assigned')).filter((e) => e.businessData.roleId === second)).toEqual([]);
  });

  it.each(PAIRS)('refuses one role holding %s and %s, at assignment and already at invitation', async (a, b) => {
    const both = await role([a, b]);
    const { id } = await fresh();
    expect((await assign(aerie, owner, 'acme', both, id)).body).toMatchObject({ error: 'SOD_CONFLICT', pair: { a, b } });
    const res = await invite(aerie, owner, 'acme', { Email: `invitee${++n}@example.com`, RoleId: both });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('SOD_CONFLICT');
  });

  it.each([
    ['a wildcard over both halves', ['org.member.*']],
    ['a constrained half', ['org.member.invite:team=A', 'org.member.revoke']],
    ['a variable-filled half', ['org.member.invite:team={team}', 'org.member.revoke']],
  ])('counts %s as holding it', async (_label, scopes) => {
    const { id } = await fresh();
    const res = await assign(aerie, owner, 'acme', await role(scopes), id, scopes.some((s) => s.includes('{team}')) ? { team: 'A' } : undefined);
    expect(res.body).toMatchObject({ error: 'SOD_CONFLICT', pair: { a: 'org.member.invite', b: 'org.member.revoke' } });
  });

  it('allows halves of different pairs together, and an unfilled half (grants nothing)', async () => {
    const { id } = await fresh();
    expect((await assign(aerie, owner, 'acme', await role(['org.member.invite', 'org.audit_event_log.delete']), id)).status).toBe(201);
    const unfilled = await role(['org.member.revoke:team={team}']);
    expect((await assign(aerie, owner, 'acme', unfilled, id)).status).toBe(201);
    expect((await assign(aerie, owner, 'acme', unfilled, id, { team: 'A' })).body.error).toBe('SOD_CONFLICT');
  });

  it('exempts Owner and Admin; a demoted Admin keeps both halves, shows in the report and fails on the next grant', async () => {
    const { id } = await fresh();
    await aerie.request('PATCH', `/api/org/acme/members/${id}`, { token: owner, body: { Role: 'Admin' } });
    const inviter = await role(['org.member.invite']);
    const revoker = await role(['org.member.revoke']);
    expect((await assign(aerie, owner, 'acme', inviter, id)).status).toBe(201);
    expect((await assign(aerie, owner, 'acme', revoker, id)).status).toBe(201);
    const clean = await aerie.request('GET', '/api/org/acme/roles/sod-report', { token: owner });
    expect(clean.body.conflicts.filter((c: { connectedIdId: string }) => c.connectedIdId === id)).toEqual([]);

    await aerie.request('PATCH', `/api/org/acme/members/${id}`, { token: owner, body: { Role: 'Member' } });
    const detectedBefore = (await auditEvents(aerie, { slug: 'acme' }, 'auth.sod.conflict_detected')).length;
    const report = await aerie.request('GET', '/api/org/acme/roles/sod-report', { token: owner });
    expect(report.status).toBe(200);
    // A scan seals one auth.sod.conflict_detected per finding.
    const detected = (await auditEvents(aerie, { slug: 'acme' }, 'auth.sod.conflict_detected')).slice(detectedBefore);
    expect(detected).toHaveLength(report.body.conflicts.length);
    expect(detected.map((e) => e.businessData)).toContainEqual(expect.objectContaining({ connectedIdId: id, a: 'org.member.invite', b: 'org.member.revoke' }));
    expect(report.body.isValid).toBe(false);
    expect(report.body.conflicts).toContainEqual(expect.objectContaining({ connectedIdId: id, a: 'org.member.invite', b: 'org.member.revoke' }));
    expect(await assignments(id)).toEqual(expect.arrayContaining([inviter, revoker]));

    const unrelated = await assign(aerie, owner, 'acme', await role(['org.role.list']), id);
    expect(unrelated.status).toBe(403);
    expect(unrelated.body).toMatchObject({ error: 'SOD_CONFLICT', conflicts: [{ a: 'org.member.invite', b: 'org.member.revoke', introduced: false }] });
    // Re-snapshotting a held role is a grant too.
    expect((await assign(aerie, owner, 'acme', inviter, id)).body.error).toBe('SOD_CONFLICT');
    // Taking one half away clears it.
    const [held] = await aerie.sql('select id from rbac.role_assignments where membership_id = ? and role_id = ?', [id, revoker]);
    await aerie.request('DELETE', `/api/org/acme/roles/${revoker}/members/${held.id}`, { token: owner });
    const after = await aerie.request('GET', '/api/org/acme/roles/sod-report', { token: owner });
    expect(after.body.conflicts.filter((c: { connectedIdId: string }) => c.connectedIdId === id)).toEqual([]);
  });

  it('reports {isValid: true, conflicts: []} for an organization without conflicts', async () => {
    await createOrg(aerie, owner, 'clean');
    const res = await aerie.request('GET', '/api/org/clean/roles/sod-report', { token: owner });
    expect(res.body).toEqual({ isValid: true, conflicts: [] });
    expect(await auditEvents(aerie, { slug: 'clean' }, 'auth.sod.conflict_detected')).toEqual([]);
  });
});

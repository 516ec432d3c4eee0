import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { assign, customRole } from '../../helpers/org-members.ts';
import { signStepUp } from '../../helpers/passkey-flows.ts';
import type { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { createTeam, addMember } from '../teams/team-helpers.ts';
import { createForm, orgWithPeople, position, relate, setLine, submit, withPasskey, type PeopleOrg } from './approval-helpers.ts';

const YEAR = new Date().getUTCFullYear();

describe('approvals: line resolution, submit, numbering, listing (docs/api/approvals.md)', () => {
  let aerie: TestAerie;
  let acme: PeopleOrg;
  let other: PeopleOrg;
  let annAuth: SoftAuthenticator;
  let holderRole: string;
  let grantRole: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    const owner = await aerie.signIn('olga@owner.test');
    acme = await orgWithPeople(aerie, owner, 'acme', ['ann', 'bob', 'cat', 'dan', 'eve', 'zoe', 'nop']);
    other = await orgWithPeople(aerie, await aerie.signIn('oscar@owner.test'), 'other', ['zed']);
    annAuth = await withPasskey(aerie, acme.tokens.ann);
    // Nested teams: ann in East (lead bob), East under Sales (lead cat); cat reports to dan by hand.
    const sales = await createTeam(aerie, acme, { Name: 'Sales', LeadConnectedId: acme.ids.cat });
    const east = await createTeam(aerie, acme, { Name: 'East', LeadConnectedId: acme.ids.bob, ParentTeamId: sales });
    expect((await addMember(aerie, acme, east, acme.ids.ann)).status).toBe(201);
    expect((await relate(aerie, acme, acme.ids.cat, acme.ids.dan)).status).toBe(201);
    holderRole = await customRole(aerie, owner, 'acme', 'SIGNER', ['org.team.list']);
    grantRole = await customRole(aerie, owner, 'acme', 'BOARD_READER', ['org.board.read', 'org.team.list']);
    for (const who of ['cat', 'dan']) expect((await assign(aerie, owner, 'acme', holderRole, acme.ids[who])).status).toBe(201);
  });
  afterAll(() => aerie?.close());

  const preview = (formId: string, token = acme.tokens.ann) => aerie.request('GET', `/api/org/acme/approvals/work-items/${formId}/resolve-line`, { token });
  const names = (steps: Array<{ connectedId: string }>) => steps.map((s) => Object.entries(acme.ids).find(([, id]) => id === s.connectedId)?.[0]);

  it('uses the default columns (team lead, executive) up the reporting tree when the form has no positions', async () => {
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Default' });
    const res = await preview(form);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ workItemId: form, usesDefaultLine: true, approverCount: 2, unresolved: [] });
    expect(names(res.body.steps)).toEqual(['bob', 'cat']);
    expect(res.body.steps.map((s: { labelEn: string }) => s.labelEn)).toEqual(['Team lead', 'Executive']);
    const top = await preview(form, acme.tokens.dan);
    expect(top.body).toMatchObject({ approverCount: 0, steps: [], unresolved: [{ position: 2, labelEn: 'Team lead' }, { position: 3, labelEn: 'Executive' }] });
  });

  it.each([
    ['the nearest holder of the role up the tree (cat, not dan above her)', () => [position('Signer', 'role', { resolveRoleId: holderRole })], ['cat'], []],
    ['one stamp for a person filling two columns', () => [position('Signer', 'role', { resolveRoleId: holderRole }), position('Fixed', 'member', { resolveMemberConnectedId: acme.ids.cat }), position('Lead', 'member', { resolveMemberConnectedId: acme.ids.bob })], ['cat', 'bob'], []],
    ['the fallback member when nobody up the tree holds the role', () => [position('Grant', 'role', { resolveRoleId: grantRole, resolveMemberConnectedId: acme.ids.eve })], ['eve'], []],
    ['an unresolved column when nobody holds the role and there is no fallback', () => [position('Staff', 'drafter'), position('Grant', 'role', { resolveRoleId: grantRole })], [], [{ position: 2, labelEn: 'Grant' }]],
    ['no step for the drafter named as a member', () => [position('Me', 'member', { resolveMemberConnectedId: acme.ids.ann })], [], []],
  ])('resolves %s', async (_l, positions, expected, unresolved) => {
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Line' });
    await setLine(aerie, acme, form, positions());
    const res = await preview(form);
    expect(names(res.body.steps)).toEqual(expected);
    expect(res.body).toMatchObject({ usesDefaultLine: false, approverCount: expected.length, unresolved });
  });

  it('refuses a submit without a seal (401 STEPUP_REQUIRED) and from a member with no passkey; writes nothing', async () => {
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Sealed' });
    const res = await aerie.request('POST', '/api/org/acme/approvals/instances', { token: acme.tokens.ann, body: { WorkItemId: form, Title: 'T', Body: 'B' } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'STEPUP_REQUIRED', purpose: 'approval.stamp' });
    const options = await aerie.request('POST', '/api/passkey/stepup/options', { token: acme.tokens.nop, body: { purpose: 'approval.stamp', subject: `acme|${form}|submit` } });
    expect(options.body).toEqual({ hasPasskey: false, options: null });
    const wrong = await signStepUp(aerie, acme.tokens.ann, annAuth, { purpose: 'approval.stamp', subject: `acme|${holderRole}|submit` });
    const other = await aerie.request('POST', '/api/org/acme/approvals/instances', { token: acme.tokens.ann, body: { WorkItemId: form, Title: 'T', Body: 'B', SealAssertionJson: JSON.stringify(wrong.assertion) } });
    expect(other.body).toMatchObject({ error: 'STEPUP_FAILED', reason: 'other_subject' });
    expect(await aerie.sql('select count(*)::int as n from approvals.instances')).toEqual([{ n: 0 }]);
  });

  it('submits: derives the line, numbers the document, opens the first step, mails its approver, audits', async () => {
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Budget' });
    const attachments = [{ Name: 'plan.pdf', Sha256: 'a'.repeat(64), Size: 1024 }];
    const res = await submit(aerie, 'acme', acme.tokens.ann, annAuth, { WorkItemId: form, Title: 'Q3 budget', Body: 'Please approve.', Attachments: attachments });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      DocumentNumber: `acme-${YEAR}-000001`, WorkItemId: form, DocType: 'document', Title: 'Q3 budget', Body: 'Please approve.', Attachments: attachments,
      Status: 'pending', RequesterConnectedId: acme.ids.ann, CreatorName: 'ann@acme.test', IsRequester: true, IsReceiver: false, MyStepStatus: null, DecidedAt: null,
    });
    expect(res.body.Steps.map((s: any) => [s.ApproverName, s.Status, s.LabelEn])).toEqual([['bob@acme.test', 'pending', 'Team lead'], ['cat@acme.test', 'waiting', 'Executive']]);
    expect(mailsTo(aerie.dataDir, 'bob@acme.test').some((m) => m.includes(`acme-${YEAR}-000001`))).toBe(true);
    expect(mailsTo(aerie.dataDir, 'cat@acme.test').some((m) => m.includes(`acme-${YEAR}-000001`))).toBe(false);
    const [event] = await auditEvents(aerie, acme, 'approval.instance.submitted');
    expect(event.businessData).toMatchObject({ instanceId: res.body.InstanceId, documentNumber: `acme-${YEAR}-000001`, status: 'pending', approverCount: 2, requesterKind: 'human' });
    expect(event.businessData._humanSeal).toBeTruthy();

    const bobList = await aerie.request('GET', '/api/org/acme/approvals/instances', { token: acme.tokens.bob });
    expect(bobList.body.Instances.map((i: any) => [i.DocumentNumber, i.IsRequester, i.MyStepStatus])).toEqual([[`acme-${YEAR}-000001`, false, 'pending']]);
    const catList = await aerie.request('GET', '/api/org/acme/approvals/instances', { token: acme.tokens.cat });
    expect(catList.body.Instances.map((i: any) => i.MyStepStatus)).toEqual(['waiting']);
    expect((await aerie.request('GET', '/api/org/acme/approvals/instances', { token: acme.tokens.eve })).body).toEqual({ Instances: [] });

    const byNumber = (token: string, slug = 'acme', n = `acme-${YEAR}-000001`) => aerie.request('GET', `/api/org/${slug}/approvals/instances/by-number/${n}`, { token });
    expect((await byNumber(acme.tokens.cat)).body.InstanceId).toBe(res.body.InstanceId);
    expect((await byNumber(acme.owner)).status).toBe(200);
    expect((await byNumber(acme.tokens.eve)).body.error).toBe('INSTANCE_NOT_FOUND');
    expect((await byNumber(other.owner, 'other')).body.error).toBe('INSTANCE_NOT_FOUND');
    expect((await byNumber(other.owner)).status).toBe(404);
  });

  it('rule 1: zero approvers approve at once for a human requester and grant the permission form\'s role', async () => {
    const form = await createForm(aerie, acme, { docType: 'permission', title: 'Board access', linkedRoleId: grantRole });
    await setLine(aerie, acme, form, [position('Staff', 'drafter')]);
    expect((await preview(form)).body.approverCount).toBe(0);
    const res = await submit(aerie, 'acme', acme.tokens.ann, annAuth, { WorkItemId: form, Title: 'Give me access', Body: '' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ Status: 'approved', Steps: [], LinkedRoleId: grantRole });
    expect(res.body.DecidedAt).not.toBeNull();
    const held = await aerie.sql('select grants from rbac.role_assignments where membership_id = ? and role_id = ?', [acme.ids.ann, grantRole]);
    expect(held.map((r) => [...r.grants].sort())).toEqual([['org.board.read', 'org.team.list']]);
  });

  it.each([
    ['the default line of a requester with no manager', () => [], 'dan'],
    ['a role column nobody up the tree holds, with no fallback', () => [position('Grant', 'role', { resolveRoleId: grantRole })], 'eve'],
    ['a fixed member who is suspended', () => [position('Fixed', 'member', { resolveMemberConnectedId: acme.ids.nop })], 'eve'],
  ])('refuses to approve at once when a column is vacant — %s (409 APPROVAL_LINE_UNRESOLVED), granting and submitting nothing', async (_l, positions, who) => {
    const form = await createForm(aerie, acme, { docType: 'permission', title: 'Vacant', linkedRoleId: grantRole });
    const line = positions();
    if (line.length > 0) await setLine(aerie, acme, form, line);
    if (line[0]?.resolveType === 'member') expect((await aerie.request('POST', `/api/org/acme/members/${acme.ids.nop}/suspend`, { token: acme.owner })).status).toBe(200);
    const auth = await withPasskey(aerie, acme.tokens[who]);
    const before = (await aerie.sql('select count(*)::int as n from approvals.instances'))[0].n;
    const res = await submit(aerie, 'acme', acme.tokens[who], auth, { WorkItemId: form, Title: 'Let me in', Body: '' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'APPROVAL_LINE_UNRESOLVED', unresolved: expect.arrayContaining([expect.objectContaining({ labelEn: expect.any(String) })]) });
    expect((await aerie.sql('select count(*)::int as n from approvals.instances'))[0].n).toBe(before);
    expect(await aerie.sql('select 1 from rbac.role_assignments where membership_id = ? and role_id = ?', [acme.ids[who], grantRole])).toEqual([]);
  });

  it('sends a report to its recipients (no stamps): status sent, IsReceiver for them, each mailed', async () => {
    const form = await createForm(aerie, acme, { docType: 'report', title: 'Weekly' });
    await setLine(aerie, acme, form, [position('To', 'member', { resolveMemberConnectedId: acme.ids.eve }), position('Cc', 'member', { resolveMemberConnectedId: acme.ids.dan })]);
    expect((await preview(form)).body).toMatchObject({ approverCount: 0, steps: [{ kind: 'receiver' }, { kind: 'receiver' }] });
    const res = await submit(aerie, 'acme', acme.tokens.ann, annAuth, { WorkItemId: form, Title: 'Week 47', Body: 'All good.' });
    expect(res.body).toMatchObject({ Status: 'sent', IsReceiver: false });
    const eve = await aerie.request('GET', '/api/org/acme/approvals/instances', { token: acme.tokens.eve });
    expect(eve.body.Instances.map((i: any) => [i.Title, i.IsReceiver, i.MyStepStatus])).toEqual([['Week 47', true, 'received']]);
    for (const to of ['eve@acme.test', 'dan@acme.test']) expect(mailsTo(aerie.dataDir, to).some((m) => m.includes('Week 47'))).toBe(true);
  });

  it('numbers 50 concurrent submits with 50 distinct, gap-free numbers', async () => {
    const zoeAuth = await withPasskey(aerie, acme.tokens.zoe);
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Burst' });
    await setLine(aerie, acme, form, [position('Lead', 'member', { resolveMemberConnectedId: acme.ids.bob })]);
    const [{ n: before }] = await aerie.sql('select count(*)::int as n from approvals.instances where org_id = ?', [acme.id]);
    // signCount 0 on every assertion: the passkey's counter stays 0, so 50 seals of one passkey can race.
    const seals = [];
    for (let i = 0; i < 50; i++) {
      seals.push(JSON.stringify((await signStepUp(aerie, acme.tokens.zoe, zoeAuth, { purpose: 'approval.stamp', subject: `acme|${form}|submit` }, { signCount: 0 })).assertion));
    }
    const results = await Promise.all(seals.map((SealAssertionJson, i) => aerie.request('POST', '/api/org/acme/approvals/instances', {
      token: acme.tokens.zoe, body: { WorkItemId: form, Title: `Burst ${i}`, Body: '', SealAssertionJson },
    })));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => r.body.DocumentNumber as string).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => `acme-${YEAR}-${String(before + i + 1).padStart(6, '0')}`));
  }, 120_000);

  it("answers 404 for another organization's forms and instances on the instance routes", async () => {
    const theirs = await createForm(aerie, other, { docType: 'document', title: 'Theirs' });
    const sealed = await submit(aerie, 'acme', acme.tokens.ann, annAuth, { WorkItemId: theirs, Title: 'x', Body: '' });
    expect(sealed.body).toMatchObject({ error: 'FORM_NOT_FOUND', field: 'WorkItemId' });
    // The guard refuses before a seal is asked for.
    const direct = await aerie.request('POST', '/api/org/acme/approvals/instances', { token: acme.tokens.ann, body: { WorkItemId: theirs, Title: 'x', Body: '' } });
    expect(direct.status).toBe(404);
    expect(direct.body).toMatchObject({ error: 'FORM_NOT_FOUND', field: 'WorkItemId' });
    expect((await aerie.request('GET', '/api/org/other/approvals/instances', { token: acme.tokens.ann })).status).toBe(404);
    expect(await aerie.sql('select count(*)::int as n from approvals.instances where work_item_id = ?', [theirs])).toEqual([{ n: 0 }]);
  });
});

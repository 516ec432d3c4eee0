import { Command } from 'commander';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySealProof } from '../../../core/seals/seal-proof.ts';
import { registerSealCommands } from '../../../core/seals/verify-proof.command.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { assign, customRole, joinOrg } from '../../helpers/org-members.ts';
import { signStepUp } from '../../helpers/passkey-flows.ts';
import type { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { createForm, orgWithPeople, position, setLine, signStamp, stamp, submit, withPasskey, type PeopleOrg } from './approval-helpers.ts';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();
/** The canonical line, written here from docs/api/approvals.md (not with the kernel's code). */
const canonical = (b: { nonce: string; purpose: string; subject: string; fields: Array<{ key: string; value: string }> }) =>
  'aerie-stepup-v1' + [['nonce', b.nonce], ['purpose', b.purpose], ['subject', b.subject], ...b.fields.map((f) => [f.key, f.value])]
    .map(([k, v]) => `|${k}=${Buffer.byteLength(v, 'utf8')}:${v}`).join('');

describe('approvals: content-bound stamps, rules 2–6 (docs/api/approvals.md)', () => {
  let aerie: TestAerie;
  let acme: PeopleOrg;
  let other: PeopleOrg;
  const auth: Record<string, SoftAuthenticator> = {};
  let docForm: string;
  let grantRole: string;
  let permForm: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    const owner = await aerie.signIn('olga@owner.test');
    acme = await orgWithPeople(aerie, owner, 'acme', ['ann', 'bob', 'cat', 'eve', 'sam']);
    other = await orgWithPeople(aerie, await aerie.signIn('oscar@owner.test'), 'other', []);
    for (const who of ['ann', 'bob', 'cat', 'eve', 'sam']) auth[who] = await withPasskey(aerie, acme.tokens[who]);
    auth.oscar = await withPasskey(aerie, other.owner);
    docForm = await createForm(aerie, acme, { docType: 'document', title: 'Doc' });
    await setLine(aerie, acme, docForm, [position('First', 'member', { resolveMemberConnectedId: acme.ids.bob }), position('Second', 'member', { resolveMemberConnectedId: acme.ids.cat })]);
    grantRole = await customRole(aerie, owner, 'acme', 'MEMBER_ADMIN', ['org.team.list', 'org.member.revoke']);
    permForm = await createForm(aerie, acme, { docType: 'permission', title: 'Access', linkedRoleId: grantRole });
    await setLine(aerie, acme, permForm, [position('Approver', 'member', { resolveMemberConnectedId: acme.ids.bob })]);
  });
  afterAll(() => aerie?.close());

  const newDoc = async (who = 'ann', form = docForm, extra: Record<string, unknown> = {}) => {
    const res = await submit(aerie, 'acme', acme.tokens[who], auth[who], { WorkItemId: form, Title: '이사회 승인', Body: 'Body ✓', Attachments: [{ Name: 'a.pdf', Sha256: 'b'.repeat(64), Size: 3 }], ...extra });
    if (res.status !== 201) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { InstanceId: string; DocumentNumber: string };
  };
  const steps = async (id: string) => (await aerie.sql('select status, reason from approvals.steps where instance_id = ? order by step_order', [id])).map((r) => `${r.status}${r.reason ? `:${r.reason}` : ''}`);

  it('rule 2–3: options carry the binding in the spec order; the challenge is SHA-256 of the canonical line', async () => {
    const doc = await newDoc();
    const { binding, options } = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    expect(binding).toMatchObject({ version: 'aerie-stepup-v1', purpose: 'approval.stamp', subject: `${doc.InstanceId}|approve|reject` });
    expect(binding.nonce).toMatch(/^[0-9a-f]{64}$/);
    const manifest = JSON.stringify([{ Name: 'a.pdf', Sha256: 'b'.repeat(64), Size: 3 }]);
    expect(binding.fields).toEqual([
      { key: 'org', value: 'acme' }, { key: 'instance', value: doc.InstanceId }, { key: 'number', value: doc.DocumentNumber },
      { key: 'title', value: '이사회 승인' }, { key: 'decision', value: 'approve' }, { key: 'requester', value: acme.ids.ann },
      { key: 'body.sha256', value: sha256('Body ✓').toString('hex') }, { key: 'attachments.sha256', value: sha256(manifest).toString('hex') },
    ]);
    expect(options.challenge).toBe(sha256(canonical(binding)).toString('base64url'));
    const withReason = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId, '  Not now  ');
    expect(withReason.binding.fields.slice(4, 5)).toEqual([{ key: 'decision', value: 'reject' }]);
    expect(withReason.binding.fields.at(-1)).toEqual({ key: 'input.reason', value: 'Not now' });
  });

  it('sorts grant entries ordinally on a permission form (approve only; none on reject)', async () => {
    const doc = await newDoc('ann', permForm);
    const approve = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    expect(approve.binding.fields.filter((f: { key: string }) => f.key === 'grant')).toEqual([{ key: 'grant', value: 'org.member.revoke' }, { key: 'grant', value: 'org.team.list' }]);
    const reject = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId, '');
    expect(reject.binding.fields.some((f: { key: string }) => f.key === 'grant')).toBe(false);
  });

  it('approves step by step: the next approver is mailed; the last stamp approves; each event carries a verifiable sp', async () => {
    const doc = await newDoc();
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    const first = await stamp(aerie, 'acme', acme.tokens.bob, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ Status: 'pending', MyStepStatus: 'approved' });
    expect(await steps(doc.InstanceId)).toEqual(['approved', 'pending']);
    expect(mailsTo(aerie.dataDir, 'cat@acme.test').some((m) => m.includes(doc.DocumentNumber))).toBe(true);
    const cat = await signStamp(aerie, acme.tokens.cat, auth.cat, doc.InstanceId);
    const last = await stamp(aerie, 'acme', acme.tokens.cat, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(cat.assertion) });
    expect(last.body).toMatchObject({ Status: 'approved', MyStepStatus: 'approved' });
    expect(last.body.DecidedAt).not.toBeNull();

    const events = (await auditEvents(aerie, acme, 'approval.stamp.approved')).filter((e) => e.businessData.instanceId === doc.InstanceId);
    expect(events.map((e) => [e.businessData.code, e.businessData.stepOrder, e.businessData.instanceStatus])).toEqual([['RPT031', 1, 'pending'], ['RPT031', 2, 'approved']]);
    const sp = events[0].businessData.sp;
    expect(sp).toMatchObject({ v: 'aerie-stepup-proof-v1', canonical: canonical(bob.binding), credentialId: bob.assertion.id });
    const key = auth.bob.publicKeyJwk(bob.assertion.id);
    const { origins, rpId } = aerie.kernel.config.webauthn;
    expect(verifySealProof(sp, key, { origin: origins[0], rpId, binding: canonical(bob.binding) }).ok).toBe(true);
    const flip = (b64: string, at: number) => { const b = Buffer.from(b64, 'base64url'); b[at] ^= 1; return b.toString('base64url'); };
    const broken = [
      { ...sp, canonical: sp.canonical.replace('이사회', '이사최') },
      { ...sp, canonical: sp.canonical.replace('decision=7:approve', 'decision=7:approvE') },
      { ...sp, authenticatorData: flip(sp.authenticatorData, 33) },
      { ...sp, clientDataJSON: flip(sp.clientDataJSON, 5) },
      { ...sp, signature: flip(sp.signature, Buffer.from(sp.signature, 'base64url').length - 1) },
    ];
    for (const proof of broken) expect(verifySealProof(proof, key).ok).toBe(false);
  });

  it('rule 6: `aerie seal verify` verifies the stamp record offline; its canonical line is the document rebuilt from the instance', async () => {
    const doc = await newDoc();
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    expect((await stamp(aerie, 'acme', acme.tokens.bob, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) })).status).toBe(200);
    const [record] = (await auditEvents(aerie, acme, 'approval.stamp.approved')).filter((e) => e.businessData.instanceId === doc.InstanceId);
    const dir = mkdtempSync(join(tmpdir(), 'aerie-approval-'));
    try {
      writeFileSync(join(dir, 'record.json'), JSON.stringify(record));
      writeFileSync(join(dir, 'key.jwk.json'), JSON.stringify(auth.bob.publicKeyJwk(bob.assertion.id)));
      let out = '';
      const program = new Command('aerie').exitOverride();
      registerSealCommands(program, { out: (t) => { out += t; }, err: (t) => { out += t; } });
      await program.parseAsync(['seal', 'verify', join(dir, 'record.json'), '--public-key', join(dir, 'key.jwk.json'), '--rp-id', aerie.kernel.config.webauthn.rpId], { from: 'user' });
      expect(process.exitCode ?? 0).toBe(0);
      expect(out.trimEnd().endsWith('VALID')).toBe(true);
    } finally {
      process.exitCode = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
    // Rebuild the signed line from what an export shows of the instance (and the nonce in the proof).
    const shown = (await aerie.request('GET', `/api/org/acme/approvals/instances/by-number/${doc.DocumentNumber}`, { token: acme.tokens.bob })).body;
    const nonce = /\|nonce=64:([0-9a-f]{64})/.exec(record.businessData.sp.canonical)![1];
    const rebuilt = canonical({
      nonce, purpose: 'approval.stamp', subject: `${shown.InstanceId}|approve|reject`,
      fields: [
        { key: 'org', value: 'acme' }, { key: 'instance', value: shown.InstanceId }, { key: 'number', value: shown.DocumentNumber },
        { key: 'title', value: shown.Title }, { key: 'decision', value: 'approve' }, { key: 'requester', value: shown.RequesterConnectedId },
        { key: 'body.sha256', value: sha256(shown.Body).toString('hex') }, { key: 'attachments.sha256', value: sha256(JSON.stringify(shown.Attachments.map((a: any) => ({ Name: a.Name, Sha256: a.Sha256, Size: a.Size })))).toString('hex') },
      ],
    });
    expect(record.businessData.sp.canonical).toBe(rebuilt);
  });

  it('rejects with the typed reason: later steps are skipped; RPT032 carries the reason and sp', async () => {
    const doc = await newDoc();
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId, ' Not in budget ✓ ');
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.InstanceId, { Decision: 'reject', Reason: 'Not in budget ✓', SealAssertionJson: JSON.stringify(bob.assertion) });
    expect(res.status).toBe(200);
    expect(res.body.Status).toBe('rejected');
    expect(await steps(doc.InstanceId)).toEqual(['rejected:Not in budget ✓', 'skipped']);
    const [event] = (await auditEvents(aerie, acme, 'approval.stamp.rejected')).filter((e) => e.businessData.instanceId === doc.InstanceId);
    expect(event.businessData).toMatchObject({ code: 'RPT032', decision: 'reject', reason: 'Not in budget ✓', instanceStatus: 'rejected' });
    expect(event.businessData.sp.canonical).toContain('|input.reason=17:Not in budget ✓');
  });

  const tamper: Array<[string, (id: string) => Promise<unknown>]> = [
    ['title', (id) => aerie.sql("update approvals.instances set title = title || '.' where id = ?", [id])],
    ['body.sha256', (id) => aerie.sql("update approvals.instances set body = body || ' ' where id = ?", [id])],
    ['attachments.sha256', (id) => aerie.sql(`update approvals.instances set attachments = '[{"Name":"a.pdf","Sha256":"${'c'.repeat(64)}","Size":3}]' where id = ?`, [id])],
    ['number', (id) => aerie.sql("update approvals.instances set document_number = document_number || 'x' where id = ?", [id])],
    ['requester', (id) => aerie.sql('update approvals.instances set requester_connected_id = ? where id = ?', [acme.ids.eve, id])],
  ];
  it.each(tamper)('rule 5: refuses a stamp after %s changed (403 seal_binding_mismatch naming it); nothing is recorded', async (key, change) => {
    const doc = await newDoc();
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    await change(doc.InstanceId);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: [key] });
    expect(await steps(doc.InstanceId)).toEqual(['pending', 'waiting']);
  });

  it('rule 5: refuses a stamp when the granted scopes changed after signing (grant)', async () => {
    const doc = await newDoc('ann', permForm);
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    const added = await aerie.request('POST', `/api/org/acme/roles/${grantRole}/permissions`, { token: acme.owner, body: { Scope: 'org.board.read' } });
    expect(added.status).toBe(201);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) });
    expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: ['grant'] });
    expect(await steps(doc.InstanceId)).toEqual(['pending']);
  });

  it.each([
    ['another decision than signed (decision)', undefined, { Decision: 'reject' }, ['decision']],
    ['another reason than signed (input.reason)', 'Too late', { Decision: 'reject', Reason: 'Too soon' }, ['input.reason']],
    ['a reason where none was signed (input.reason)', undefined, { Decision: 'approve', Reason: 'why not' }, ['input.reason']],
  ])('rule 4–5: refuses %s with 403 seal_binding_mismatch', async (_l, signedReason, body, keys) => {
    const doc = await newDoc();
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId, signedReason);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.InstanceId, { ...body, SealAssertionJson: JSON.stringify(bob.assertion) });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: keys });
    expect(await steps(doc.InstanceId)).toEqual(['pending', 'waiting']);
  });

  it("rule 5: refuses a genuine seal signed for another instance with 403 seal_binding_mismatch; nothing is recorded or spent", async () => {
    const [a, b] = [await newDoc(), await newDoc()];
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, a.InstanceId);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, b.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) });
    expect(res.status).toBe(403);
    // Same requester, title, body and attachments: only what names the instance differs.
    expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: ['subject', 'instance', 'number'] });
    expect(await steps(b.InstanceId)).toEqual(['pending', 'waiting']);
    expect((await auditEvents(aerie, acme, 'approval.stamp.approved')).some((e) => [a.InstanceId, b.InstanceId].includes(e.businessData.instanceId))).toBe(false);
    // The refused seal was not spent: it still stamps the instance it was made for.
    expect((await stamp(aerie, 'acme', acme.tokens.bob, a.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) })).status).toBe(200);
  });

  it.each([
    ['no seal', async () => undefined, 'STEPUP_REQUIRED', undefined],
    ["another instance's seal with a broken signature", async (a: string) =>
      (await signStamp(aerie, acme.tokens.bob, auth.bob, a, undefined, { corruptSignature: true })).assertion, 'STEPUP_FAILED', 'verification_failed'],
    ["another instance's seal whose challenge expired", async (a: string) => {
      const { assertion, options } = await signStamp(aerie, acme.tokens.bob, auth.bob, a);
      await aerie.sql("update core.seal_challenges set expires_at = now() - interval '1 second' where challenge = ?", [options.challenge]);
      return assertion;
    }, 'STEPUP_FAILED', 'expired'],
    ['a submit seal (not a stamp seal)', async () =>
      (await signStepUp(aerie, acme.tokens.bob, auth.bob, { purpose: 'approval.stamp', subject: `acme|${docForm}|submit` })).assertion, 'STEPUP_FAILED', 'other_subject'],
  ])('rule 5: other seal failures keep their 401 answers (%s)', async (_l, seal, code, reason) => {
    const [a, b] = [await newDoc(), await newDoc()];
    const assertion = await seal(a.InstanceId);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, b.InstanceId, { Decision: 'approve', ...(assertion ? { SealAssertionJson: JSON.stringify(assertion) } : {}) });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe(code);
    if (reason) expect(res.body.reason).toBe(reason);
    expect(await steps(b.InstanceId)).toEqual(['pending', 'waiting']);
  });

  it('rule 5: refuses a stamp after the org field changed (the organization renamed its slug after signing)', async () => {
    const doc = await newDoc();
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    await aerie.sql("update orgs.organizations set slug = 'acme-renamed' where id = ?", [acme.id]);
    try {
      const res = await stamp(aerie, 'acme-renamed', acme.tokens.bob, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: ['org'] });
    } finally {
      await aerie.sql("update orgs.organizations set slug = 'acme' where id = ?", [acme.id]);
    }
    expect(await steps(doc.InstanceId)).toEqual(['pending', 'waiting']);
  });

  it("rule 5: refuses a seal made in another organization for a document with the same title, body and attachments (org differs)", async () => {
    // Oscar approves in both organizations; Dan submits the twin in "other".
    const oscarInAcme = await joinOrg(aerie, acme.owner, 'acme', 'oscar@owner.test', 'ORG_FREELANCER');
    const form = await createForm(aerie, acme, { docType: 'document', title: 'Twin' });
    await setLine(aerie, acme, form, [position('Approver', 'member', { resolveMemberConnectedId: oscarInAcme.id })]);
    const dan = await joinOrg(aerie, other.owner, 'other', 'dan@other.test', 'ORG_FREELANCER');
    const danAuth = await withPasskey(aerie, dan.token);
    const otherForm = await createForm(aerie, other, { docType: 'document', title: 'Twin' });
    await setLine(aerie, other, otherForm, [position('Approver', 'member', { resolveMemberConnectedId: other.ownerId })]);
    const doc = await newDoc('ann', form);
    const body = { WorkItemId: otherForm, Title: '이사회 승인', Body: 'Body ✓', Attachments: [{ Name: 'a.pdf', Sha256: 'b'.repeat(64), Size: 3 }] };
    const twin = await submit(aerie, 'other', dan.token, danAuth, body);
    expect(twin.status).toBe(201);
    const seal = await signStamp(aerie, other.owner, auth.oscar, twin.body.InstanceId);
    expect(seal.binding.fields[0]).toEqual({ key: 'org', value: 'other' });
    const res = await stamp(aerie, 'acme', oscarInAcme.token, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(seal.assertion) });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: ['subject', 'org', 'instance', 'number', 'requester'] });
    expect(await steps(doc.InstanceId)).toEqual(['pending']);
    expect(await steps(twin.body.InstanceId)).toEqual(['pending']);
  });

  it("grants a permission form's role through rbac's assignment path on the last approval", async () => {
    const doc = await newDoc('cat', permForm);
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) });
    expect(res.body.Status).toBe('approved');
    expect(await aerie.sql('select count(*)::int as n from rbac.role_assignments where membership_id = ? and role_id = ?', [acme.ids.cat, grantRole])).toEqual([{ n: 1 }]);
  });

  it('applies separation of duties to the grant: 403 SOD_CONFLICT, auth.sod.assignment_blocked recorded, the stamp not recorded', async () => {
    const inviter = await customRole(aerie, acme.owner, 'acme', 'INVITER', ['org.member.invite']);
    expect((await assign(aerie, acme.owner, 'acme', inviter, acme.ids.sam)).status).toBe(201);
    const doc = await newDoc('sam', permForm);
    const bob = await signStamp(aerie, acme.tokens.bob, auth.bob, doc.InstanceId);
    const res = await stamp(aerie, 'acme', acme.tokens.bob, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(bob.assertion) });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'SOD_CONFLICT', pair: { a: 'org.member.invite', b: 'org.member.revoke' } });
    expect((await auditEvents(aerie, acme, 'auth.sod.assignment_blocked')).some((e) => e.businessData.connectedIdId === acme.ids.sam)).toBe(true);
    expect(await steps(doc.InstanceId)).toEqual(['pending']);
    expect((await auditEvents(aerie, acme, 'approval.stamp.approved')).some((e) => e.businessData.instanceId === doc.InstanceId)).toBe(false);
  });

  it('refuses stamps from people with no pending step, on decided documents and on reports, before any seal', async () => {
    const doc = await newDoc();
    const bad = (who: string, id = doc.InstanceId) => stamp(aerie, 'acme', acme.tokens[who], id, { Decision: 'approve' });
    expect((await bad('eve')).body.error).toBe('INSTANCE_NOT_FOUND');
    expect((await bad('cat')).body).toMatchObject({ error: 'STEP_NOT_PENDING', instanceStatus: 'pending' });
    expect((await bad('bob')).body.error).toBe('STEPUP_REQUIRED');
    const eveOptions = await aerie.request('POST', '/api/passkey/stepup/options', { token: acme.tokens.eve, body: { purpose: 'approval.stamp', subject: `${doc.InstanceId}|approve|reject` } });
    expect(eveOptions.status).toBe(404);
    expect(eveOptions.body.error).toBe('INSTANCE_NOT_FOUND');
    const report = await createForm(aerie, acme, { docType: 'report', title: 'R' });
    await setLine(aerie, acme, report, [position('To', 'member', { resolveMemberConnectedId: acme.ids.bob })]);
    const sent = await newDoc('ann', report);
    expect((await bad('bob', sent.InstanceId)).body.error).toBe('REPORT_NOT_STAMPED');
  });

  it("answers 404 for another organization's instances on the stamp route and in the options", async () => {
    const doc = await newDoc();
    const res = await stamp(aerie, 'other', other.owner, doc.InstanceId, { Decision: 'approve' });
    expect(res.body.error).toBe('INSTANCE_NOT_FOUND');
    expect((await stamp(aerie, 'acme', other.owner, doc.InstanceId, { Decision: 'approve' })).status).toBe(404);
    const options = await aerie.request('POST', '/api/passkey/stepup/options', { token: other.owner, body: { purpose: 'approval.stamp', subject: `${doc.InstanceId}|approve|reject` } });
    expect(options.body.error).toBe('INSTANCE_NOT_FOUND');
    expect(await steps(doc.InstanceId)).toEqual(['pending', 'waiting']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { verifySealProof } from '../../../core/seals/seal-proof.ts';
import { TestAerie, type TestResponse } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { mailsTo } from '../../helpers/mail.ts';
import type { AssertionOverrides, SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { SECOND_DEVICE_LINK_REQUESTS_PER_IP } from '../../../plugins/approvals/routes/second-device.route.ts';
import { createForm, orgWithPeople, position, setLine, signStamp, stamp, submit, withPasskey, type PeopleOrg } from './approval-helpers.ts';

/**
 * Rule 7 (spec 02 "Approvals"), as docs/api/approvals.md "Second-device confirmation" writes it:
 * the per-organization switch, the notice and required phases, the statuses the computer polls,
 * the one-time emailed link, expiry by the injected clock, cross-organization and other people's ids.
 */

/** One Aerie with an organization `acme`: ann submits; bob and cat approve with a computer and a phone passkey; dan has only one passkey. */
interface World {
  aerie: TestAerie;
  acme: PeopleOrg;
  other: PeopleOrg;
  computer: Record<string, SoftAuthenticator>;
  phone: Record<string, SoftAuthenticator>;
  formFor: Record<string, string>;
}

async function world(aerie: TestAerie): Promise<World> {
  const acme = await orgWithPeople(aerie, await aerie.signIn('olga@owner.test'), 'acme', ['ann', 'bob', 'cat', 'dan', 'ada']);
  const other = await orgWithPeople(aerie, await aerie.signIn('oscar@owner.test'), 'other', []);
  await aerie.sql("update orgs.memberships set role = 'Admin' where id = ?", [acme.ids.ada]);
  const computer: Record<string, SoftAuthenticator> = {};
  const phone: Record<string, SoftAuthenticator> = {};
  for (const who of ['ann', 'bob', 'cat', 'dan']) computer[who] = await withPasskey(aerie, acme.tokens[who]);
  for (const who of ['bob', 'cat']) phone[who] = await withPasskey(aerie, acme.tokens[who]);
  computer.oscar = await withPasskey(aerie, other.owner);
  const formFor: Record<string, string> = {};
  for (const who of ['bob', 'cat', 'dan']) {
    formFor[who] = await createForm(aerie, acme, { docType: 'document', title: `To ${who}` });
    await setLine(aerie, acme, formFor[who], [position('Approver', 'member', { resolveMemberConnectedId: acme.ids[who] })]);
  }
  formFor.both = await createForm(aerie, acme, { docType: 'document', title: 'Two steps' });
  await setLine(aerie, acme, formFor.both, [
    position('First', 'member', { resolveMemberConnectedId: acme.ids.bob }), position('Second', 'member', { resolveMemberConnectedId: acme.ids.cat }),
  ]);
  return { aerie, acme, other, computer, phone, formFor };
}

async function newDoc(w: World, form: string): Promise<{ InstanceId: string; DocumentNumber: string }> {
  const res = await submit(w.aerie, 'acme', w.acme.tokens.ann, w.computer.ann, { WorkItemId: form, Title: 'Budget 2027', Body: 'Spend it wisely' });
  if (res.status !== 201) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Signs the stamp on `who`'s computer and sends it; a reason makes it a rejection. */
async function stampOnComputer(w: World, who: string, instanceId: string, reason?: string) {
  const signed = await signStamp(w.aerie, w.acme.tokens[who], w.computer[who], instanceId, reason);
  const res = await stamp(w.aerie, 'acme', w.acme.tokens[who], instanceId, {
    Decision: reason === undefined ? 'approve' : 'reject', ...(reason === undefined ? {} : { Reason: reason }), SealAssertionJson: JSON.stringify(signed.assertion),
  });
  return { res, signed };
}

const setSetting = (w: World, on: boolean, token = w.acme.owner) =>
  w.aerie.request('PUT', '/api/org/acme/approvals/settings', { token, body: { secondDeviceConfirmation: on } });
const stepStatus = async (w: World, id: string) =>
  (await w.aerie.sql('select status, reason, credential_id from approvals.steps where instance_id = ? order by step_order', [id]));

describe('approvals rule 7: settings and the notice phase (AERIE_APPROVALS_SECOND_DEVICE_PHASE unset: notice)', () => {
  let w: World;
  beforeAll(async () => { w = await world(await TestAerie.start()); });
  afterAll(() => w?.aerie.close());

  it('is on by default; every member reads it, with the global phase', async () => {
    const res = await w.aerie.request('GET', '/api/org/acme/approvals/settings', { token: w.acme.tokens.ann });
    expect(res).toMatchObject({ status: 200, body: { secondDeviceConfirmation: true, secondDevicePhase: 'notice', updatedAt: null } });
    expect(await w.aerie.sql('select * from approvals.settings')).toEqual([]);
  });

  // In order: a state machine over the one setting (starts on).
  it.each([
    ['Member', 'ann', false, 403, 'PERMISSION_DENIED', true, null],
    ['Admin', 'ada', false, 403, 'PERMISSION_DENIED', true, null],
    ['Owner', 'owner', false, 200, undefined, false, { from: true, to: false }],
    ['Member', 'ann', true, 403, 'PERMISSION_DENIED', false, null],
    ['Admin', 'ada', true, 200, undefined, true, { from: false, to: true }],
    ['Owner', 'owner', true, 200, undefined, true, null],
  ] as const)('%s (%s) sets secondDeviceConfirmation=%s → %i %s', async (_role, who, value, status, code, after, audited) => {
    const before = (await auditEvents(w.aerie, w.acme, 'approval.settings.changed')).length;
    const res = await setSetting(w, value, who === 'owner' ? w.acme.owner : w.acme.tokens[who]);
    expect(res.status).toBe(status);
    if (code) expect(res.body).toMatchObject({ error: code });
    else expect(res.body).toMatchObject({ secondDeviceConfirmation: after, secondDevicePhase: 'notice' });
    expect((await w.aerie.request('GET', '/api/org/acme/approvals/settings', { token: w.acme.tokens.ann })).body.secondDeviceConfirmation).toBe(after);
    const events = await auditEvents(w.aerie, w.acme, 'approval.settings.changed');
    if (!audited) expect(events.length).toBe(before);
    else {
      expect(events.length).toBe(before + 1);
      expect(events.at(-1)!.businessData).toEqual({ setting: 'secondDeviceConfirmation', ...audited });
      expect(events.at(-1)!.actorType).toBe('account');
    }
  });

  it('a setting of another organization is out of reach (404)', async () => {
    expect((await w.aerie.request('PUT', '/api/org/other/approvals/settings', { token: w.acme.owner, body: { secondDeviceConfirmation: false } })).status).toBe(404);
    expect((await w.aerie.request('GET', '/api/org/acme/approvals/settings', { token: w.other.owner })).status).toBe(404);
  });

  it.each([
    ['on, approver with another passkey', true, 'bob', { notice: true, hasSecondDevice: true }],
    ['on, approver with one passkey', true, 'dan', { notice: true, hasSecondDevice: false }],
    ['off', false, 'bob', undefined],
  ] as const)('notice phase, setting %s: the stamp is recorded with the computer passkey alone (200)', async (_label, on, who, secondDevice) => {
    expect((await setSetting(w, on)).status).toBe(200);
    const doc = await newDoc(w, w.formFor[who]);
    const { res, signed } = await stampOnComputer(w, who, doc.InstanceId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Status: 'approved', MyStepStatus: 'approved' });
    expect(res.body.secondDevice).toEqual(secondDevice);
    expect(await stepStatus(w, doc.InstanceId)).toEqual([{ status: 'approved', reason: null, credential_id: signed.assertion.id }]);
    expect(await w.aerie.sql('select * from approvals.second_device_requests where instance_id = ?', [doc.InstanceId])).toEqual([]);
    expect((await setSetting(w, true)).status).toBe(200);
  });
});

describe('approvals rule 7: the required phase (AERIE_APPROVALS_SECOND_DEVICE_PHASE=required)', () => {
  let w: World;
  const clock = new ManualClock();
  beforeAll(async () => {
    w = await world(await TestAerie.start({ clock, env: { AERIE_APPROVALS_SECOND_DEVICE_PHASE: 'required' } }));
  });
  afterAll(() => w?.aerie.close());

  /** The newest second-device link's token mailed to `who` (quoted-printable undone). */
  const linkToken = (who: string): string => {
    const mail = mailsTo(w.aerie.dataDir, `${who}@acme.test`).filter((m) => /X-Aerie-Template: approval-second-device/i.test(m)).at(-1) ?? '';
    const token = /\/approvals\/second-device#([A-Za-z0-9_-]+)/.exec(mail.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1];
    if (!token) throw new Error(`no second-device mail to ${who}`);
    return token;
  };
  const poll = (requestId: string, token = w.acme.tokens.bob, slug = 'acme') =>
    w.aerie.request('GET', `/api/org/${slug}/approvals/second-device/${requestId}`, { token });
  const phoneOptions = (Token: string) => w.aerie.request('POST', '/api/approvals/second-device/options', { body: { Token } });
  /** Opens the link on the phone, signs with `auth` and confirms. */
  const confirmOnPhone = async (Token: string, auth: SoftAuthenticator, overrides: AssertionOverrides = {}): Promise<TestResponse & { options?: TestResponse }> => {
    const options = await phoneOptions(Token);
    if (options.status !== 200) return options;
    const assertion = auth.getAssertion(options.body.options, overrides);
    return { ...(await w.aerie.request('POST', '/api/approvals/second-device/confirm', { body: { Token, SealAssertionJson: JSON.stringify(assertion) } })), options };
  };
  /** Stamps on bob's computer and expects 202; answers the request id and the link token. */
  const awaiting = async (form = w.formFor.bob, reason?: string) => {
    const doc = await newDoc(w, form);
    const { res, signed } = await stampOnComputer(w, 'bob', doc.InstanceId, reason);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return { doc, signed, requestId: res.body.secondDevice.requestId as string, token: linkToken('bob'), body: res.body };
  };
  const requestRow = async (id: string) => (await w.aerie.sql('select status, channel, confirm_credential_id, refused_code from approvals.second_device_requests where id = ?', [id]))[0];
  const eventsOf = async (requestId: string) => (await auditEvents(w.aerie, w.acme)).filter((e) => e.businessData.requestId === requestId || e.businessData.secondDevice?.requestId === requestId);

  it('202 awaiting_second_device: nothing recorded, the link mailed, valid 10 minutes, audited as requested', async () => {
    const { doc, signed, requestId, body } = await awaiting();
    expect(body).toEqual({ status: 'awaiting_second_device', secondDevice: { requestId, expiresAt: new Date(clock.now().getTime() + 600_000).toISOString(), channel: 'email' } });
    expect(await stepStatus(w, doc.InstanceId)).toEqual([{ status: 'pending', reason: null, credential_id: null }]);
    expect((await w.aerie.request('GET', `/api/org/acme/approvals/instances/by-number/${doc.DocumentNumber}`, { token: w.acme.tokens.ann })).body.Status).toBe('pending');
    expect(await requestRow(requestId)).toEqual({ status: 'pending', channel: 'email', confirm_credential_id: null, refused_code: null });
    const [requested] = await eventsOf(requestId);
    expect(requested).toMatchObject({
      eventType: 'approval.second_device.requested',
      businessData: { requestId, instanceId: doc.InstanceId, documentNumber: doc.DocumentNumber, stepOrder: 1, decision: 'approve', credentialId: signed.assertion.id },
    });
    // The token is stored only as its hash.
    const token = linkToken('bob');
    expect(await w.aerie.sql('select 1 from approvals.second_device_requests where token_hash = ?', [token])).toEqual([]);
  });

  it('409 second_device_required for an approver with no other passkey, before the seal is spent', async () => {
    const doc = await newDoc(w, w.formFor.dan);
    const { res, signed } = await stampOnComputer(w, 'dan', doc.InstanceId);
    expect(res).toMatchObject({ status: 409, body: { error: 'second_device_required' } });
    const [challenge] = await w.aerie.sql('select consumed_at from core.seal_challenges where challenge = ?', [signed.options.challenge]);
    expect(challenge.consumed_at).toBeNull();
    expect(await stepStatus(w, doc.InstanceId)).toEqual([{ status: 'pending', reason: null, credential_id: null }]);
    expect(await w.aerie.sql('select * from approvals.second_device_requests where instance_id = ?', [doc.InstanceId])).toEqual([]);
  });

  it("403 seal_binding_mismatch when the phone confirms with a seal made for another instance; the request stays open and then completes", async () => {
    const { doc, requestId, token } = await awaiting();
    expect((await phoneOptions(token)).status).toBe(200);
    const elsewhere = await newDoc(w, w.formFor.bob);
    const wrong = await signStamp(w.aerie, w.acme.tokens.bob, w.phone.bob, elsewhere.InstanceId);
    const res = await w.aerie.request('POST', '/api/approvals/second-device/confirm', { body: { Token: token, SealAssertionJson: JSON.stringify(wrong.assertion) } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: ['subject', 'instance', 'number'] });
    expect(await requestRow(requestId)).toMatchObject({ status: 'completing', refused_code: null });
    expect((await stepStatus(w, doc.InstanceId)).map((s) => s.status)).toEqual(['pending']);
    expect((await confirmOnPhone(token, w.phone.bob)).body).toMatchObject({ requestId, status: 'done' });
    expect((await stepStatus(w, elsewhere.InstanceId)).map((s) => s.status)).toEqual(['pending']);
  });

  it('pending → completing → done: the phone signs the same document with another passkey; the stamp then takes effect with both proofs', async () => {
    const { doc, signed, requestId, token } = await awaiting(w.formFor.both);
    expect((await poll(requestId)).body).toMatchObject({ requestId, status: 'pending', instanceId: doc.InstanceId, documentNumber: doc.DocumentNumber, decision: 'approve', channel: 'email', finishedAt: null, error: null });

    const options = await phoneOptions(token);
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({ requestId, org: { slug: 'acme' }, documentNumber: doc.DocumentNumber, title: 'Budget 2027', decision: 'approve', reason: null, hasPasskey: true });
    expect(options.body.binding.fields).toEqual(signed.binding.fields);
    const offered = options.body.options.allowCredentials.map((c: { id: string }) => c.id);
    expect(offered).not.toContain(signed.assertion.id);
    expect(offered).toHaveLength(1);
    expect((await poll(requestId)).body.status).toBe('completing');

    const assertion = w.phone.bob.getAssertion(options.body.options);
    const done = await w.aerie.request('POST', '/api/approvals/second-device/confirm', { body: { Token: token, SealAssertionJson: JSON.stringify(assertion) } });
    expect(done).toMatchObject({ status: 200, body: { requestId, status: 'done', error: null } });
    expect((await poll(requestId)).body).toMatchObject({ status: 'done', finishedAt: clock.now().toISOString() });
    expect((await stepStatus(w, doc.InstanceId)).map((s) => [s.status, s.credential_id])).toEqual([['approved', signed.assertion.id], ['pending', null]]);
    expect(await requestRow(requestId)).toMatchObject({ status: 'done', confirm_credential_id: assertion.id });
    expect(mailsTo(w.aerie.dataDir, 'cat@acme.test').some((m) => m.includes(doc.DocumentNumber))).toBe(true);

    const events = await eventsOf(requestId);
    expect(events.map((e) => e.eventType)).toEqual(['approval.second_device.requested', 'approval.stamp.approved', 'approval.second_device.confirmed']);
    expect(events[2].businessData).toMatchObject({ credentialId: assertion.id, stampCredentialId: signed.assertion.id });
    const { sp, secondDevice } = events[1].businessData;
    const { origins, rpId } = w.aerie.kernel.config.webauthn;
    expect(sp.credentialId).toBe(signed.assertion.id);
    expect(verifySealProof(sp, w.computer.bob.publicKeyJwk(signed.assertion.id), { origin: origins[0], rpId }).ok).toBe(true);
    expect(secondDevice).toMatchObject({ requestId, credentialId: assertion.id });
    expect(verifySealProof(secondDevice.sp, w.phone.bob.publicKeyJwk(assertion.id), { origin: origins[0], rpId }).ok).toBe(true);
    expect(secondDevice.sp.canonical.replace(/nonce=64:[0-9a-f]{64}/, '')).toBe(sp.canonical.replace(/nonce=64:[0-9a-f]{64}/, ''));
  });

  it.each([
    ['options', (t: string) => phoneOptions(t)],
    ['confirm', (t: string) => confirmOnPhone(t, w.phone.bob)],
    ['deny', (t: string) => w.aerie.request('POST', '/api/approvals/second-device/deny', { body: { Token: t } })],
  ])('the one-time link, once used, is refused: %s → 409 SECOND_DEVICE_LINK_USED', async (_route, call) => {
    const { requestId, token } = await awaiting();
    expect((await confirmOnPhone(token, w.phone.bob)).status).toBe(200);
    const again = await call(token);
    expect(again).toMatchObject({ status: 409, body: { error: 'SECOND_DEVICE_LINK_USED', status: 'done' } });
    expect((await poll(requestId)).body.status).toBe('done');
    expect((await eventsOf(requestId)).filter((e) => e.eventType === 'approval.stamp.approved')).toHaveLength(1);
  });

  it('a rejection waits too; confirmed, it records the reason the computer sent', async () => {
    const { doc, requestId, token } = await awaiting(w.formFor.bob, '  Over budget ');
    const options = await phoneOptions(token);
    expect(options.body).toMatchObject({ decision: 'reject', reason: 'Over budget' });
    expect(options.body.binding.fields.at(-1)).toEqual({ key: 'input.reason', value: 'Over budget' });
    const res = await w.aerie.request('POST', '/api/approvals/second-device/confirm', { body: { Token: token, SealAssertionJson: JSON.stringify(w.phone.bob.getAssertion(options.body.options)) } });
    expect(res.body).toMatchObject({ status: 'done', decision: 'reject' });
    expect((await stepStatus(w, doc.InstanceId)).map((s) => [s.status, s.reason])).toEqual([['rejected', 'Over budget']]);
    expect((await eventsOf(requestId)).map((e) => e.eventType)).toContain('approval.stamp.rejected');
  });

  // The phone's assertion may answer any approval.stamp challenge of the approver on the instance
  // (e.g. one the computer's session asked for): it confirms only when it signed the decision and
  // content the computer signed, else the stamp would carry a second proof of another decision.
  it.each([
    ['a rejection (no reason) with an approve-signed phone assertion', '', undefined],
    ['an approval with a reject-signed phone assertion (no reason)', undefined, ''],
  ] as const)('the phone must sign what the computer signed: %s → 403 seal_binding_mismatch, refused, nothing recorded', async (_label, computerReason, phoneReason) => {
    const { doc, requestId, token } = await awaiting(w.formFor.bob, computerReason);
    const other = await signStamp(w.aerie, w.acme.tokens.bob, w.phone.bob, doc.InstanceId, phoneReason);
    const res = await w.aerie.request('POST', '/api/approvals/second-device/confirm', { body: { Token: token, SealAssertionJson: JSON.stringify(other.assertion) } });
    expect(res).toMatchObject({ status: 403, body: { error: 'seal_binding_mismatch' } });
    expect(res.body.mismatchedKeys).toContain('decision');
    expect(await stepStatus(w, doc.InstanceId)).toEqual([{ status: 'pending', reason: null, credential_id: null }]);
    expect(await requestRow(requestId)).toMatchObject({ status: 'refused', confirm_credential_id: null, refused_code: 'seal_binding_mismatch' });
    expect((await eventsOf(requestId)).map((e) => [e.eventType, e.businessData.error])).toEqual([
      ['approval.second_device.requested', undefined], ['approval.second_device.refused', 'seal_binding_mismatch'],
    ]);
    expect((await auditEvents(w.aerie, w.acme)).filter((e) => e.eventType.startsWith('approval.stamp.') && e.businessData.instanceId === doc.InstanceId)).toEqual([]);
  });

  it('denied: "this was not me" on the phone; the stamp is never recorded', async () => {
    const { doc, requestId, token } = await awaiting();
    const res = await w.aerie.request('POST', '/api/approvals/second-device/deny', { body: { Token: token } });
    expect(res).toMatchObject({ status: 200, body: { requestId, status: 'denied' } });
    expect((await poll(requestId)).body.status).toBe('denied');
    expect(await stepStatus(w, doc.InstanceId)).toEqual([{ status: 'pending', reason: null, credential_id: null }]);
    expect((await eventsOf(requestId)).map((e) => e.eventType)).toEqual(['approval.second_device.requested', 'approval.second_device.denied']);
    expect((await confirmOnPhone(token, w.phone.bob))).toMatchObject({ status: 409, body: { error: 'SECOND_DEVICE_LINK_USED', status: 'denied' } });
  });

  it('409 SECOND_DEVICE_SAME_PASSKEY when the phone signs with the passkey that stamped; the request stays open', async () => {
    const { doc, signed, requestId, token } = await awaiting();
    const same = await confirmOnPhone(token, w.computer.bob, { credentialId: signed.assertion.id });
    expect(same).toMatchObject({ status: 409, body: { error: 'SECOND_DEVICE_SAME_PASSKEY' } });
    expect((await poll(requestId)).body.status).toBe('completing');
    expect(await stepStatus(w, doc.InstanceId)).toEqual([{ status: 'pending', reason: null, credential_id: null }]);
    expect((await confirmOnPhone(token, w.phone.bob)).body.status).toBe('done');
  });

  it('refused: a second request on a step another confirmation already stamped ends refused with the error', async () => {
    const doc = await newDoc(w, w.formFor.bob);
    const first = await stampOnComputer(w, 'bob', doc.InstanceId);
    const firstToken = linkToken('bob');
    const second = await stampOnComputer(w, 'bob', doc.InstanceId);
    const secondToken = linkToken('bob');
    expect([first.res.status, second.res.status]).toEqual([202, 202]);
    expect((await confirmOnPhone(firstToken, w.phone.bob)).body.status).toBe('done');
    const late = await confirmOnPhone(secondToken, w.phone.bob);
    expect(late).toMatchObject({ status: 409, body: { error: 'STEP_NOT_PENDING', instanceStatus: 'approved' } });
    const requestId = second.res.body.secondDevice.requestId;
    expect((await poll(requestId)).body).toMatchObject({ status: 'refused', error: 'STEP_NOT_PENDING' });
    expect((await eventsOf(requestId)).map((e) => [e.eventType, e.businessData.error])).toEqual([
      ['approval.second_device.requested', undefined], ['approval.second_device.refused', 'STEP_NOT_PENDING'],
    ]);
  });

  it('expires after 10 minutes by core.clock: 599 s still pending, 600 s expired (audited once); the link then answers 410', async () => {
    const { doc, requestId, token } = await awaiting();
    clock.advance(599);
    expect((await poll(requestId)).body.status).toBe('pending');
    clock.advance(1);
    expect((await poll(requestId)).body).toMatchObject({ status: 'expired', finishedAt: clock.now().toISOString() });
    expect((await poll(requestId)).body.status).toBe('expired');
    for (const res of [await phoneOptions(token), await w.aerie.request('POST', '/api/approvals/second-device/deny', { body: { Token: token } })]) {
      expect(res).toMatchObject({ status: 410, body: { error: 'SECOND_DEVICE_LINK_EXPIRED' } });
    }
    expect(await stepStatus(w, doc.InstanceId)).toEqual([{ status: 'pending', reason: null, credential_id: null }]);
    const events = await eventsOf(requestId);
    expect(events.map((e) => [e.eventType, e.actorType])).toEqual([['approval.second_device.requested', 'account'], ['approval.second_device.expired', 'system']]);
  });

  it('expiry found by the link first: the phone that opened the link in time and signs after 10 minutes gets 410', async () => {
    const { requestId, token } = await awaiting();
    const options = await phoneOptions(token);
    clock.advance(600);
    const assertion = w.phone.bob.getAssertion(options.body.options);
    const res = await w.aerie.request('POST', '/api/approvals/second-device/confirm', { body: { Token: token, SealAssertionJson: JSON.stringify(assertion) } });
    expect(res).toMatchObject({ status: 410, body: { error: 'SECOND_DEVICE_LINK_EXPIRED' } });
    expect((await poll(requestId)).body.status).toBe('expired');
  });

  it.each([
    ['the approver, through another organization', 'bob', 'other', 404, 'NOT_FOUND'],
    ["another organization's owner, through theirs", 'oscar', 'other', 404, 'SECOND_DEVICE_REQUEST_NOT_FOUND'],
    ['another approver of the same document', 'cat', 'acme', 404, 'SECOND_DEVICE_REQUEST_NOT_FOUND'],
    ["the organization's Owner", 'owner', 'acme', 404, 'SECOND_DEVICE_REQUEST_NOT_FOUND'],
    ['the approver who stamped', 'bob', 'acme', 200, undefined],
  ] as const)('poll by %s (%s through %s) → %i', async (_label, who, slug, status, code) => {
    const { requestId } = await awaiting(w.formFor.both);
    const token = who === 'oscar' ? w.other.owner : who === 'owner' ? w.acme.owner : w.acme.tokens[who];
    const res = await poll(requestId, token, slug);
    expect(res.status).toBe(status);
    if (code) expect(res.body.error).toBe(code);
  });

  it('two confirmations racing on one link: exactly one records the stamp', async () => {
    const { doc, requestId, token } = await awaiting();
    const first = await phoneOptions(token);
    const second = await phoneOptions(token);
    const [a, b] = [w.phone.bob.getAssertion(first.body.options), w.phone.bob.getAssertion(second.body.options)];
    const answers = await Promise.all([a, b].map((assertion) =>
      w.aerie.request('POST', '/api/approvals/second-device/confirm', { body: { Token: token, SealAssertionJson: JSON.stringify(assertion) } })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    // The loser either finds the link used (409) or lost the signature counter to the winner (401 STEPUP_FAILED).
    const loser = answers.find((r) => r.status !== 200)!;
    expect([401, 409]).toContain(loser.status);
    expect((await poll(requestId)).body.status).toBe('done');
    expect((await auditEvents(w.aerie, w.acme, 'approval.stamp.approved')).filter((e) => e.businessData.instanceId === doc.InstanceId)).toHaveLength(1);
  });

  it('409 second_device_required on the link when the approver removed their other passkey after stamping', async () => {
    const doc = await newDoc(w, w.formFor.cat);
    const signed = await signStamp(w.aerie, w.acme.tokens.cat, w.computer.cat, doc.InstanceId);
    const res = await stamp(w.aerie, 'acme', w.acme.tokens.cat, doc.InstanceId, { Decision: 'approve', SealAssertionJson: JSON.stringify(signed.assertion) });
    expect(res.status).toBe(202);
    const [phoneKey] = await w.aerie.sql(
      'select p.credential_id from approvals.second_device_requests r join accounts.passkeys p on p.account_id = r.account_id and p.credential_id <> r.credential_id where r.id = ?',
      [res.body.secondDevice.requestId],
    );
    expect((await w.aerie.request('DELETE', `/api/passkey/${phoneKey.credential_id}`, { token: w.acme.tokens.cat })).status).toBe(204);
    expect(await phoneOptions(linkToken('cat'))).toMatchObject({ status: 409, body: { error: 'second_device_required' } });
    expect((await poll(res.body.secondDevice.requestId, w.acme.tokens.cat)).body.status).toBe('pending');
  });

  it('an unknown link or request id is 404', async () => {
    expect(await phoneOptions('x'.repeat(43))).toMatchObject({ status: 404, body: { error: 'SECOND_DEVICE_REQUEST_NOT_FOUND' } });
    expect(await poll('00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 404, body: { error: 'SECOND_DEVICE_REQUEST_NOT_FOUND' } });
  });

  it('with the setting off the required phase records at once (200, no secondDevice)', async () => {
    expect((await setSetting(w, false)).status).toBe(200);
    try {
      const doc = await newDoc(w, w.formFor.dan);
      const { res } = await stampOnComputer(w, 'dan', doc.InstanceId);
      expect(res.status).toBe(200);
      expect(res.body.secondDevice).toBeUndefined();
      expect((await stepStatus(w, doc.InstanceId))[0].status).toBe('approved');
    } finally {
      expect((await setSetting(w, true)).status).toBe(200);
    }
  });
});

describe('approvals rule 7: the key-less second-device routes are rate-limited per client address', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    // Requests come from the addresses given in X-Forwarded-For, as behind a reverse proxy.
    aerie = await TestAerie.start({ env: { AERIE_TRUST_PROXY: '1' } });
  });
  afterAll(async () => {
    await aerie?.close();
  });

  const link = (route: string, ip: string, Token = 'x'.repeat(43)) =>
    aerie.request('POST', `/api/approvals/second-device/${route}`, { body: { Token }, headers: { 'x-forwarded-for': ip } });

  it(`answers 429 RATE_LIMITED with Retry-After past ${SECOND_DEVICE_LINK_REQUESTS_PER_IP.points} requests in ${SECOND_DEVICE_LINK_REQUESTS_PER_IP.durationSeconds / 60} minutes from one address, over the three routes together`, async () => {
    const routes = ['options', 'confirm', 'deny'];
    const answers: string[] = [];
    for (let i = 0; i < SECOND_DEVICE_LINK_REQUESTS_PER_IP.points; i++) {
      const res = await link(routes[i % 3], '10.9.9.9');
      answers.push(`${res.status} ${res.body.error}`);
    }
    // Guessed tokens spend the budget: each answer was the unknown link's 404.
    expect(new Set(answers)).toEqual(new Set(['404 SECOND_DEVICE_REQUEST_NOT_FOUND']));
    for (const route of routes) {
      const refused = await link(route, '10.9.9.9');
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
      expect(refused.body.retryAfterSeconds).toBeLessThanOrEqual(SECOND_DEVICE_LINK_REQUESTS_PER_IP.durationSeconds);
      expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfterSeconds));
    }
    // Another address has its own budget.
    expect((await link('options', '10.9.9.8')).body.error).toBe('SECOND_DEVICE_REQUEST_NOT_FOUND');
  });
});

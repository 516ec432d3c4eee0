import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import pino from 'pino';
import { coreRefs, type AuditService, type Clock, type Database } from '../../../core/index.ts';
import { OutcomeRecorder } from '../../../plugins/webhooks/outcome-recorder.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { hasOpenssl, TlsReceiver, type ReceivedRequest } from '../../helpers/tls-receiver.ts';
import { addMembership } from '../apps/helpers.ts';
import type { ServerResponse } from 'node:http';

const ok = (_q: ReceivedRequest, res: ServerResponse) => res.writeHead(200).end('ok');

describe.skipIf(!hasOpenssl)('webhooks: delivery of sealed events to a local HTTPS receiver (needs openssl)', () => {
  let aerie: TestAerie;
  let receiver: TlsReceiver;
  let acme: TestOrg;
  let globex: TestOrg;
  let admin: string;

  beforeAll(async () => {
    receiver = await TlsReceiver.start();
    aerie = await TestAerie.start({ overrides: { 'egress.allowLoopback': true, 'egress.caFiles': [receiver.caFile], 'webhooks.timeoutSeconds': 1, 'webhooks.interruptedAfterSeconds': 8 } });
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    admin = await addMembership(aerie, acme, 'admin@acme.test', 'Admin');
  });
  afterAll(async () => {
    await aerie?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.handler = ok;
  });

  /** Appends events to `org`'s chain (as background work would), seals them; the dispatcher reacts. */
  async function emit(org: TestOrg, ...types: string[]): Promise<void> {
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    const db = aerie.kernel.container.resolve<Database>(coreRefs.db.id);
    await db.transaction((trx) => audit.appendMany(trx, types.map((eventType, i) => ({ orgId: org.id, eventType, businessData: { n: i } }))));
    await aerie.kernel.auditSealer!.drain();
  }

  async function register(org: TestOrg, events: string[], token = org.owner, path = '/hook'): Promise<{ id: string; secret: string }> {
    const res = await aerie.request('POST', `/api/org/${org.slug}/webhook-endpoints`, { token, body: { url: receiver.url(path), events } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  /** Waits until the endpoint has `n` deliveries and none is still `sending`. */
  async function settled(endpointId: string, n: number): Promise<any[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const rows = await aerie.sql('select * from webhooks.deliveries where endpoint_id = ? order by event_seq', [endpointId]);
      if (rows.length >= n && rows.every((r) => r.outcome !== 'sending')) return rows;
      if (Date.now() > deadline) throw new Error(`deliveries of ${endpointId}: ${JSON.stringify(rows.map((r) => r.outcome))}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  const forPath = (path: string) => receiver.received.filter((r) => r.url === path);

  it('delivers a sealed event signed the Standard Webhooks way, placed on the chain, listed with its outcome', async () => {
    const ep = await register(acme, ['test.*'], acme.owner, '/signed');
    await emit(acme, 'test.ping');
    const [row] = await settled(ep.id, 1);
    expect(row).toMatchObject({ outcome: 'succeeded', http_status: 200, event_type: 'test.ping', failure_class: null });
    const [got] = forPath('/signed');
    const envelope = new Webhook(ep.secret).verify(got.body, got.headers as Record<string, string>) as any;
    expect(got.headers['webhook-id']).toBe(row.id);
    expect(envelope).toMatchObject({ id: row.id, type: 'test.ping', data: { orgId: acme.id, seq: Number(row.event_seq), actor: { type: 'system', id: 'system' }, payload: { n: 0 } } });
    // The delivery is provably on the chain: the sealed record has the same position and hashes.
    const [sealed] = await aerie.sql('select id, seq, chain_hash, payload_hash, occurred_at from core.audit_events where org_id = ? and seq = ?', [acme.id, envelope.data.seq]);
    expect(envelope.data).toMatchObject({ auditEventId: sealed.id, chainHash: sealed.chain_hash, payloadHash: sealed.payload_hash });
    expect(envelope.timestamp).toBe(new Date(sealed.occurred_at).toISOString());
    const list = await aerie.request('GET', `/api/org/acme/webhook-endpoints/${ep.id}/deliveries`, { token: acme.owner });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ deliveries: [expect.objectContaining({ id: row.id, auditEventId: sealed.id, outcome: 'succeeded', httpStatus: 200, latencyMs: expect.any(Number) })], nextCursor: null });
  });

  it('after a rotation the next delivery verifies with the new secret only', async () => {
    const ep = await register(acme, ['test.rotate'], acme.owner, '/rotate');
    const rotated = (await aerie.request('POST', `/api/org/acme/webhook-endpoints/${ep.id}/rotate-secret`, { token: acme.owner })).body;
    await emit(acme, 'test.rotate');
    await settled(ep.id, 1);
    const [got] = forPath('/rotate');
    expect(() => new Webhook(rotated.secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(ep.secret).verify(got.body, got.headers as Record<string, string>)).toThrow();
  });

  it('delivers only what the patterns select, only events sealed after registration, only to the organization\'s own endpoints', async () => {
    await emit(acme, 'test.scope.before');
    const members = await register(acme, ['test.scope.member.*'], acme.owner, '/scope-a');
    const exact = await register(acme, ['TEST.SCOPE.EXACT'], acme.owner, '/scope-b');
    const theirs = await register(globex, ['test.*'], globex.owner, '/scope-globex');
    await emit(acme, 'test.scope.before', 'test.scope.member.invited', 'test.scope.member', 'test.scope.exact', 'test.scope.membership.x');
    const a = await settled(members.id, 1);
    const b = await settled(exact.id, 1);
    expect(a.map((r) => r.event_type)).toEqual(['test.scope.member.invited']);
    expect(b.map((r) => r.event_type)).toEqual(['test.scope.exact']);
    await new Promise((r) => setTimeout(r, 300));
    expect(await aerie.sql('select count(*)::int as n from webhooks.deliveries where endpoint_id = ?', [theirs.id])).toEqual([{ n: 0 }]);
    expect(forPath('/scope-globex')).toEqual([]);
  });

  it('payment.* goes only to endpoints the Owner registered', async () => {
    const owners = await register(acme, ['payment.*'], acme.owner, '/pay-owner');
    const admins = await register(acme, ['payment.*', 'test.*'], admin, '/pay-admin');
    await emit(acme, 'payment.charged', 'test.after.payment');
    expect((await settled(owners.id, 1)).map((r) => r.event_type)).toEqual(['payment.charged']);
    expect((await settled(admins.id, 1)).map((r) => r.event_type)).toEqual(['test.after.payment']);
  });

  it('cuts a hanging receiver at the time-out and counts it; a redirect is not followed and counts too', async () => {
    const hang = await register(acme, ['test.hang'], acme.owner, '/hang');
    receiver.handler = (q, res) => {
      if (q.url === '/redirect') res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data/' }).end();
    };
    await emit(acme, 'test.hang');
    const [row] = await settled(hang.id, 1);
    expect(row).toMatchObject({ outcome: 'failed', failure_class: 'timeout', http_status: null });
    expect(row.latency_ms).toBeGreaterThanOrEqual(900);
    expect(row.latency_ms).toBeLessThan(5_000);
    const redirect = await register(acme, ['test.redirect'], acme.owner, '/redirect');
    await emit(acme, 'test.redirect');
    const [r2] = await settled(redirect.id, 1);
    expect(r2).toMatchObject({ outcome: 'failed', failure_class: 'redirect', http_status: 302 });
    expect(forPath('/redirect')).toHaveLength(1);
    const [ep] = await aerie.sql('select consecutive_failures, is_active from webhooks.endpoints where id = ?', [hang.id]);
    expect(ep).toEqual({ consecutive_failures: 1, is_active: true });
  });

  it('refuses at send time a URL that now reaches a private address; the reason is recorded', async () => {
    const ep = await register(acme, ['test.private'], acme.owner, '/private');
    // As if the registered name had been repointed at the internal network.
    await aerie.sql("update webhooks.endpoints set url = 'https://10.20.30.40/hook' where id = ?", [ep.id]);
    await emit(acme, 'test.private');
    const [row] = await settled(ep.id, 1);
    expect(row).toMatchObject({ outcome: 'failed', failure_class: 'blocked', detail: 'the address of 10.20.30.40 is refused' });
  });

  it('a success resets the failure counter; 20 consecutive failures disable the endpoint, audited once, and what follows is skipped', async () => {
    const ep = await register(acme, ['test.breaker'], acme.owner, '/breaker');
    receiver.handler = (_q, res) => res.writeHead(500).end();
    await emit(acme, ...Array.from({ length: 19 }, () => 'test.breaker'));
    await settled(ep.id, 19);
    expect((await aerie.sql('select consecutive_failures, is_active from webhooks.endpoints where id = ?', [ep.id]))[0]).toEqual({ consecutive_failures: 19, is_active: true });
    receiver.handler = ok;
    await emit(acme, 'test.breaker');
    await settled(ep.id, 20);
    expect((await aerie.sql('select consecutive_failures from webhooks.endpoints where id = ?', [ep.id]))[0].consecutive_failures).toBe(0);

    receiver.handler = (_q, res) => res.writeHead(503).end();
    const sentBefore = forPath('/breaker').length;
    await emit(acme, ...Array.from({ length: 25 }, () => 'test.breaker'));
    const rows = (await settled(ep.id, 45)).slice(20);
    const failed = rows.filter((r) => r.outcome === 'failed').length;
    const skipped = rows.filter((r) => r.outcome === 'skipped').length;
    expect(failed).toBeGreaterThanOrEqual(20); // up to 3 more were already in flight when the 20th failed
    expect(failed).toBeLessThanOrEqual(23);
    expect(failed + skipped).toBe(25);
    expect(forPath('/breaker').length - sentBefore).toBe(failed);
    const [state] = await aerie.sql('select consecutive_failures, is_active, disabled_at from webhooks.endpoints where id = ?', [ep.id]);
    expect(state).toMatchObject({ consecutive_failures: 20, is_active: false });
    expect(state.disabled_at).not.toBeNull();
    const disabled = (await auditEvents(aerie, acme, 'org.webhook.disabled')).filter((e) => e.businessData.endpointId === ep.id);
    expect(disabled).toEqual([{ eventType: 'org.webhook.disabled', actorType: 'system', actorId: 'system', businessData: { endpointId: ep.id, reason: 'circuit_breaker', consecutiveFailures: 20 } }]);
    const shown = (await aerie.request('GET', '/api/org/acme/webhook-endpoints', { token: acme.owner })).body.webhookEndpoints.find((e: any) => e.id === ep.id);
    expect(shown).toMatchObject({ isActive: false, consecutiveFailures: 20, disabledAt: expect.any(String) });

    // Disabled: nothing more is recorded or sent; enabling clears the counter and delivers again.
    await emit(acme, 'test.breaker');
    await new Promise((r) => setTimeout(r, 300));
    expect(await aerie.sql('select count(*)::int as n from webhooks.deliveries where endpoint_id = ?', [ep.id])).toEqual([{ n: 45 }]);
    receiver.handler = ok;
    const on = await aerie.request('POST', `/api/org/acme/webhook-endpoints/${ep.id}/toggle`, { token: acme.owner, body: { isActive: true } });
    expect(on.body).toMatchObject({ isActive: true, consecutiveFailures: 0 });
    await emit(acme, 'test.breaker');
    const after = await settled(ep.id, 46);
    expect(after.at(-1).outcome).toBe('succeeded');
  });

  it('lists a claimed attempt as sending until its outcome is written; a claim nobody keeps alive turns unknown and is never sent', async () => {
    const ep = await register(acme, ['test.claim.delivered'], acme.owner, '/claim');
    await emit(acme, 'test.claim.a', 'test.claim.b'); // not selected: the dispatcher leaves them alone
    const events = await aerie.sql("select id, seq, event_type from core.audit_events where org_id = ? and event_type like 'test.claim.%' order by seq", [acme.id]);
    // As a running process (heartbeat fresh) and a stopped one (heartbeat long gone) leave their claims.
    const claim = (id: string, e: any, heartbeat: string) => aerie.sql(
      `insert into webhooks.claims (id, org_id, endpoint_id, seqs, event_ids, event_types, owner, claimed_at, heartbeat_at)
       values (?, ?, ?, array[?]::bigint[], array[?]::uuid[], array[?]::text[], 'test', now(), ?)`, [id, acme.id, ep.id, e.seq, e.id, e.event_type, heartbeat]);
    await claim('liveClaimAAAAAAA', events[0], '2999-01-01T00:00:00Z');
    await claim('goneClaimBBBBBBB', events[1], '2000-01-01T00:00:00Z');
    const list = async () => (await aerie.request('GET', `/api/org/acme/webhook-endpoints/${ep.id}/deliveries`, { token: acme.owner })).body.deliveries as any[];
    expect((await list()).find((d) => d.id === 'msg_liveClaimAAAAAAA_0')).toMatchObject({
      auditEventId: events[0].id, eventSeq: Number(events[0].seq), eventType: 'test.claim.a', outcome: 'sending', httpStatus: null, completedAt: null,
    });
    const deadline = Date.now() + 30_000;
    while (!(await list()).some((d) => d.id === 'msg_goneClaimBBBBBBB_0' && d.outcome === 'unknown') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const listed = await list();
    expect(listed.find((d) => d.id === 'msg_goneClaimBBBBBBB_0')).toMatchObject({ auditEventId: events[1].id, outcome: 'unknown', detail: expect.stringContaining('not sent again'), completedAt: expect.any(String) });
    expect(listed.find((d) => d.id === 'msg_liveClaimAAAAAAA_0')).toMatchObject({ outcome: 'sending' });
    expect(await aerie.sql('select id from webhooks.claims where endpoint_id = ?', [ep.id])).toEqual([{ id: 'liveClaimAAAAAAA' }]);
    expect(forPath('/claim')).toEqual([]);
    await aerie.sql('delete from webhooks.claims where id = ?', ['liveClaimAAAAAAA']);
  });

  it('an outcome that arrives after its claim was declared interrupted replaces the unknown row (listed once)', async () => {
    const ep = await register(acme, ['test.late.delivered'], acme.owner, '/late');
    await emit(acme, 'test.late.a');
    const [event] = await aerie.sql("select id, seq, event_type from core.audit_events where org_id = ? and event_type = 'test.late.a'", [acme.id]);
    await aerie.sql(
      `insert into webhooks.claims (id, org_id, endpoint_id, seqs, event_ids, event_types, owner, claimed_at, heartbeat_at)
       values ('lateClaimCCCCCCC', ?, ?, array[?]::bigint[], array[?]::uuid[], array[?]::text[], 'test', now(), '2000-01-01T00:00:00Z')`,
      [acme.id, ep.id, event.seq, event.id, event.event_type]);
    const list = async () => (await aerie.request('GET', `/api/org/acme/webhook-endpoints/${ep.id}/deliveries`, { token: acme.owner })).body.deliveries as any[];
    const deadline = Date.now() + 30_000;
    while (!(await list()).some((d) => d.outcome === 'unknown') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await list()).toEqual([expect.objectContaining({ id: 'msg_lateClaimCCCCCCC_0', outcome: 'unknown' })]);

    // The process that held the claim was only unresponsive: its outcome arrives now.
    const db = aerie.kernel.container.resolve<Database>(coreRefs.db.id);
    const recorder = new OutcomeRecorder(db, aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id), aerie.kernel.container.resolve<Clock>(coreRefs.clock.id), pino({ level: 'silent' }));
    recorder.opened('lateClaimCCCCCCC', 1);
    recorder.record({
      deliveryId: 'msg_lateClaimCCCCCCC_0', orgId: acme.id, endpointId: ep.id, claimId: 'lateClaimCCCCCCC', index: 0, auditEventId: event.id,
      eventSeq: Number(event.seq), eventType: event.event_type, attemptedAt: new Date(), outcome: 'succeeded', httpStatus: 204, latencyMs: 12,
    });
    await recorder.idle();
    expect(await list()).toEqual([expect.objectContaining({ id: 'msg_lateClaimCCCCCCC_0', auditEventId: event.id, outcome: 'succeeded', httpStatus: 204, latencyMs: 12 })]);
    expect(await aerie.sql('select outcome from webhooks.deliveries where endpoint_id = ?', [ep.id])).toEqual([{ outcome: 'succeeded' }]);
    expect(forPath('/late')).toEqual([]);
  });

  it('pages across many claims and batches: every delivery once, in the order of the whole list', async () => {
    const ep = await register(acme, ['test.pages'], acme.owner, '/pages');
    for (let i = 0; i < 5; i++) await emit(acme, ...Array.from({ length: i + 1 }, () => 'test.pages')); // one claim (or more) each
    await settled(ep.id, 15);
    const all = (await aerie.request('GET', `/api/org/acme/webhook-endpoints/${ep.id}/deliveries?limit=100`, { token: acme.owner })).body.deliveries as any[];
    expect(all).toHaveLength(15);
    expect(new Set(all.map((d) => d.auditEventId)).size).toBe(15);
    const paged: any[] = [];
    let after: string | null = null;
    do {
      const page: any = await aerie.request('GET', `/api/org/acme/webhook-endpoints/${ep.id}/deliveries?limit=2${after ? `&after=${after}` : ''}`, { token: acme.owner });
      expect(page.status).toBe(200);
      paged.push(...page.body.deliveries);
      after = page.body.nextCursor;
    } while (after);
    expect(paged.map((d) => d.id)).toEqual(all.map((d) => d.id));
    // Another organization's endpoint id lists nothing of these.
    const theirs = await register(globex, ['test.pages'], globex.owner, '/pages-globex');
    expect((await aerie.request('GET', `/api/org/globex/webhook-endpoints/${theirs.id}/deliveries`, { token: globex.owner })).body.deliveries).toEqual([]);
  });

  it('pages the delivery list newest first with an opaque cursor', async () => {
    const ep = await register(acme, ['test.page'], acme.owner, '/page');
    await emit(acme, 'test.page', 'test.page', 'test.page');
    await settled(ep.id, 3);
    const first = await aerie.request('GET', `/api/org/acme/webhook-endpoints/${ep.id}/deliveries?limit=2`, { token: acme.owner });
    expect(first.body.deliveries).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await aerie.request('GET', `/api/org/acme/webhook-endpoints/${ep.id}/deliveries?limit=2&after=${first.body.nextCursor}`, { token: acme.owner });
    expect(second.body.deliveries).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    const ids = [...first.body.deliveries, ...second.body.deliveries].map((d: any) => d.id);
    expect(new Set(ids).size).toBe(3);
    expect((await aerie.request('GET', `/api/org/acme/webhook-endpoints/${ep.id}/deliveries?limit=0`, { token: acme.owner })).status).toBe(400);
  });
});

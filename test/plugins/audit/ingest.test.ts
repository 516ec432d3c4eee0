import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { verifyRecords } from '../../../core/audit/chain/index.ts';

describe('audit ingestion: POST /api/public/v1/audit/events with an organization API key', () => {
  let aerie: TestAerie;
  let key: string;
  let keyId: string;
  let orgId: string;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'keys', 'audit'] });
    const owner = await aerie.signIn('owner@example.com');
    expect((await aerie.request('POST', '/api/org/create', { token: owner, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    orgId = (await aerie.sql(`select id from orgs.organizations where slug = 'acme'`))[0].id;
    const apiKeys = aerie.kernel.container.resolve<{ create(orgId: string, by: string | null, input: { name: string }): Promise<{ key: { id: string }; value: string }> }>('keys.apiKeys');
    const created = await apiKeys.create(orgId, null, { name: 'ingest' });
    key = created.value;
    keyId = created.key.id;
  });
  afterAll(() => aerie?.close());

  const chainLength = async () => (await aerie.sql(`select count(*)::int as n from core.audit_events where org_id = ?`, [orgId]))[0].n as number;
  const post = (body: unknown, headers: Record<string, string> = { 'x-api-key': key }) => aerie.request('POST', '/api/public/v1/audit/events', { body, headers });

  it('accepts 1,000 events in one batch, returns their ids in order, and seals them on the chain', async () => {
    const events = Array.from({ length: 1000 }, (_, i) => ({ eventType: 'app.order.placed', businessData: { i } }));
    await aerie.kernel.auditSealer.drain(); // the organization's own events, appended through the outbox
    const before = await chainLength();
    const res = await post({ events });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ accepted: 1000, firstSeq: before + 1, lastSeq: before + 1000 });
    expect(res.body.ids).toHaveLength(1000);
    // Sealed when answered: no sealer run, nothing in the outbox.
    const rows = await aerie.sql(`select id, seq, chain_hash, sealed_at, hash_version, actor_type, actor_id, business_data from core.audit_events where event_type = 'app.order.placed' order by seq`);
    expect(rows.map((r) => r.id)).toEqual(res.body.ids);
    expect(rows[999]).toMatchObject({ actor_type: 'apiKey', actor_id: keyId, business_data: { i: 999 }, hash_version: 2, chain_hash: res.body.chainHash });
    expect(new Date(rows[999].sealed_at).toISOString()).toBe(res.body.sealedAt);
    expect(await aerie.sql(`select 1 from core.audit_outbox where org_id = ?`, [orgId])).toEqual([]);
    expect(verifyRecords(await readChain(aerie.kernel.db.knex, orgId)).ok).toBe(true);
  });

  it('refuses the whole batch on one bad event, over 1,000 events, reserved types, and without a key', async () => {
    const before = await chainLength();
    const bad: Array<[unknown, number]> = [
      [{ events: Array.from({ length: 1001 }, () => ({ eventType: 'app.x' })) }, 400],
      [{ events: [{ eventType: 'app.ok' }, { eventType: 'Not Valid' }] }, 400],
      [{ events: [{ eventType: 'seal.lifecycle.registered' }] }, 400],
      // The platform's namespaces are Aerie's own: a key cannot write them.
      [{ events: [{ eventType: 'org.member.invited' }] }, 400],
      [{ events: [{ eventType: 'payment.charge.succeeded' }] }, 400],
      [{ events: [{ eventType: 'app.ok' }, { eventType: 'agent.hired' }] }, 400],
      [{ events: [{ eventType: 'business.meeting.closed' }] }, 400],
      [{ events: [{ eventType: 'appgroup.created' }] }, 400],
      [{ events: [{ eventType: 'auth.login.succeeded' }] }, 400],
      [{ events: [{ eventType: 'application.x' }] }, 400],
      [{ events: [{ eventType: 'app.x', businessData: { _humanSeal: {} } }] }, 400],
      [{ events: [{ eventType: 'app.x', occurredAt: '2999-01-01T00:00:00.000Z' }] }, 400],
      [{ events: [{ eventType: 'app.x', extra: 1 }] }, 400],
      [{ events: [] }, 400],
    ];
    for (const [body, status] of bad) expect((await post(body)).status).toBe(status);
    expect((await post({ events: [{ eventType: 'app.x' }] }, {})).status).toBe(401);
    expect((await post({ events: [{ eventType: 'app.x' }] }, { 'x-api-key': 'ah_live_nope' })).status).toBe(401);
    expect(await chainLength()).toBe(before);
  });

  it('takes the namespaces keys write (app., behavior., custom.) and names the rule when refusing another', async () => {
    expect((await post({ events: [{ eventType: 'app.order.placed' }, { eventType: 'behavior.page_view' }, { eventType: 'custom.crm.synced' }] })).status).toBe(201);
    const refused = await post({ events: [{ eventType: 'app.ok' }, { eventType: 'org.role.created' }] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'events[1].eventType', message: expect.stringContaining('app., behavior., custom.') });
  });

  it('refuses events that could not be sealed (2,000 and 5,000 levels deep, 33 levels, non-finite numbers) with 400 naming the field, and writes nothing', async () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const before = await chainLength();
    // Raw JSON text: 1e999 parses to Infinity, deep arrays stay as sent.
    const cases: Array<[string, RegExp]> = [
      [`{"events":[{"eventType":"app.ok"},{"eventType":"app.x","businessData":{"a":${nested(2000)}}}]}`, /^events\[1\]\.businessData\.a(\[0\])+$/],
      [`{"events":[{"eventType":"app.x","businessData":{"a":${nested(5000)}}}]}`, /^events\[0\]\.businessData\.a/],
      [`{"events":[{"eventType":"app.x","businessData":{"a":${nested(32)}}}]}`, /^events\[0\]\.businessData\.a/],
      // Non-finite numbers are refused by the kernel for every route, with its dotted field path.
      [`{"events":[{"eventType":"app.x","businessData":{"n":1e999}}]}`, /^events\.0\.businessData\.n$/],
    ];
    for (const [body, field] of cases) {
      const res = await aerie.request('POST', '/api/public/v1/audit/events', { body, headers: { 'x-api-key': key } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field: expect.stringMatching(field) });
    }
    expect(await chainLength()).toBe(before);
    expect((await post({ events: [{ eventType: 'app.x', businessData: { a: JSON.parse(nested(31)) } }] })).status).toBe(201);
  });

  describe('Idempotency-Key', () => {
    const body = (tag: string, n = 3) => ({ events: Array.from({ length: n }, (_, i) => ({ eventType: 'app.retry.test', businessData: { tag, i } })) });
    const keyed = (b: unknown, idem: string) => post(b, { 'x-api-key': key, 'idempotency-key': idem });

    it('answers a retry with the first result, sealing nothing again; other events under the same key are refused', async () => {
      const first = await keyed(body('a'), 'order-42');
      expect(first.status).toBe(201);
      expect(first.body.replayed).toBe(false);
      const length = await chainLength();
      const retry = await keyed(body('a'), 'order-42');
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual({ ...first.body, replayed: true });
      expect(await chainLength()).toBe(length);
      const other = await keyed(body('b'), 'order-42');
      expect(other.status).toBe(422);
      expect(other.body.error).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(await chainLength()).toBe(length);
      // Without a key the same body is sealed again, as a new batch.
      expect((await post(body('a'))).body.firstSeq).toBe(length + 1);
    });

    it('seals once when the same keyed request races itself', async () => {
      const before = await chainLength();
      const answers = await Promise.all(Array.from({ length: 5 }, () => keyed(body('race', 50), 'race-1')));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(answers.map((a) => JSON.stringify(a.body.ids))).size).toBe(1);
      expect(answers.filter((a) => !a.body.replayed)).toHaveLength(1);
      expect(await chainLength()).toBe(before + 50);
    });

    it('frees a key after 24 hours', async () => {
      const first = await keyed(body('old'), 'daily-export');
      await aerie.sql(`update core.audit_ingest_keys set created_at = now() - interval '25 hours' where key = 'daily-export'`);
      const again = await keyed(body('new'), 'daily-export');
      expect(again.status).toBe(201);
      expect(again.body.replayed).toBe(false);
      expect(again.body.firstSeq).toBe(first.body.lastSeq + 1);
    });

    it.each([['empty', ''], ['a space inside', 'a b'], ['256 characters', 'k'.repeat(256)], ['non-ASCII', 'clé']])('refuses a key that is %s with 400, sealing nothing', async (_, idem) => {
      const before = await chainLength();
      const res = await keyed(body('bad'), idem);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'Idempotency-Key' });
      expect(await chainLength()).toBe(before);
    });
  });
});

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
});

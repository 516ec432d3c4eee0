import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { verifyRecords } from '../../../core/audit/chain/index.ts';

/**
 * `audit.ingestThreads` (AERIE_AUDIT_INGEST_THREADS): batches of 100 events or more are rendered in a
 * worker pool of that many threads; the answers, the stored rows and the refusals are those of the
 * in-line path.
 */
describe('audit ingestion rendered in the worker pool (AERIE_AUDIT_INGEST_THREADS=1)', () => {
  let aerie: TestAerie;
  let key: string;
  let orgId: string;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'keys', 'audit'], env: { AERIE_AUDIT_INGEST_THREADS: '1' } });
    const owner = await aerie.signIn('owner@example.com');
    expect((await aerie.request('POST', '/api/org/create', { token: owner, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    orgId = (await aerie.sql(`select id from orgs.organizations where slug = 'acme'`))[0].id;
    const apiKeys = aerie.kernel.container.resolve<{ create(orgId: string, by: string | null, input: { name: string }): Promise<{ value: string }> }>('keys.apiKeys');
    key = (await apiKeys.create(orgId, null, { name: 'ingest' })).value;
  });
  afterAll(() => aerie?.close());

  const post = (body: unknown, headers: Record<string, string> = {}) => aerie.request('POST', '/api/public/v1/audit/events', { body, headers: { 'x-api-key': key, ...headers } });
  const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ eventType: 'app.order.placed', businessData: { i: from + i, note: 'pool ✓' } }));
  const stored = () => aerie.sql(`select id, business_data, hash_version from core.audit_events where org_id = ? and event_type = 'app.order.placed' order by seq`, [orgId]);

  it('seals a batch of 150 in the pool and one of 50 in-line, on one chain that verifies', async () => {
    const pooled = aerie.kernel.auditIngestor.pooledBatches;
    const big = await post({ events: events(150) });
    expect(big.status, JSON.stringify(big.body)).toBe(201);
    expect(aerie.kernel.auditIngestor.pooledBatches).toBe(pooled + 1);
    const small = await post({ events: events(50, 150) });
    expect(small.status).toBe(201);
    expect(aerie.kernel.auditIngestor.pooledBatches).toBe(pooled + 1);
    const rows = await stored();
    expect(rows.map((r) => r.id)).toEqual([...big.body.ids, ...small.body.ids]);
    expect(rows.map((r) => r.business_data.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(rows.every((r) => r.hash_version === 2)).toBe(true);
    await aerie.kernel.auditSealer.drain();
    expect(verifyRecords(await readChain(aerie.kernel.db.knex, orgId)).ok).toBe(true);
  });

  it('refuses an oversized businessData found by the worker as the in-line path does, writing nothing', async () => {
    const before = (await stored()).length;
    const batch = events(150);
    batch[120] = { eventType: 'app.order.placed', businessData: { i: 120, note: 'x'.repeat(17_000) } };
    const res = await post({ events: batch });
    expect(res).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'events[120].businessData' } });
    expect((await stored()).length).toBe(before);
  });

  it('replays a retry with the same Idempotency-Key and refuses the key for other events', async () => {
    const first = await post({ events: events(120, 1000) }, { 'idempotency-key': 'pool-retry-1' });
    expect(first.status).toBe(201);
    const retry = await post({ events: events(120, 1000) }, { 'idempotency-key': 'pool-retry-1' });
    expect(retry).toMatchObject({ status: 201, body: { replayed: true, ids: first.body.ids, chainHash: first.body.chainHash } });
    const other = await post({ events: events(120, 2000) }, { 'idempotency-key': 'pool-retry-1' });
    expect(other).toMatchObject({ status: 422, body: { error: 'IDEMPOTENCY_KEY_REUSED' } });
  });
});

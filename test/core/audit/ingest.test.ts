import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { TestAerie } from '../../helpers/harness.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { verifyRecords } from '../../../core/audit/chain/index.ts';
import { AerieError } from '../../../core/errors.ts';
import { AuditIngestor } from '../../../core/audit/ingest.ts';
import { chainWorkers } from '../../helpers/chain-workers.ts';
import { systemClock } from '../../../core/clock.ts';
import pino from 'pino';

describe('core.audit.ingest: batches sealed on the chain without the outbox', () => {
  let aerie: TestAerie;
  let audit: AuditService;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs'] });
    audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
  });
  afterAll(() => aerie?.close());

  const db = () => aerie.kernel.db;
  const events = (n: number, tag = 'x') => Array.from({ length: n }, (_, i) => ({ eventType: 'app.order.placed', businessData: { i, tag } }));
  const append = (orgId: string, n: number) =>
    db().transaction((trx) => audit.appendMany(trx, Array.from({ length: n }, (_, i) => ({ orgId, eventType: 'test.outbox', businessData: { i } }))));

  it('answers once sealed: version 2 rows at the next seqs, the head advanced, a checkpoint signed, the outbox untouched', async () => {
    const orgId = randomUUID();
    const result = await audit.ingest(orgId, events(3));
    expect(result).toMatchObject({ firstSeq: 1, lastSeq: 3 });
    expect(result.ids).toHaveLength(3);
    const rows = await aerie.sql(`select id, seq, hash_version, chain_hash, actor_type from core.audit_events where org_id = ? order by seq`, [orgId]);
    expect(rows.map((r) => [r.id, Number(r.seq), r.hash_version, r.actor_type])).toEqual(result.ids.map((id, i) => [id, i + 1, 2, 'system']));
    expect(rows[2].chain_hash).toBe(result.chainHash);
    const [head] = await aerie.sql(`select seq, chain_hash from core.audit_heads where org_id = ?`, [orgId]);
    expect([Number(head.seq), head.chain_hash]).toEqual([3, result.chainHash]);
    expect(await aerie.sql(`select 1 from core.audit_outbox where org_id = ?`, [orgId])).toEqual([]);
    const chain = await readChain(db().knex, orgId);
    expect(chain.every((r) => r.hashVersion === 2)).toBe(true);
    expect(verifyRecords(chain)).toMatchObject({ ok: true, checked: 3 });
    await aerie.kernel.auditCheckpointer.flush(orgId);
    const [checkpoint] = await aerie.sql(`select max(seq) as seq from core.audit_checkpoints where org_id = ?`, [orgId]);
    expect(Number(checkpoint.seq)).toBe(3);
  });

  it('keeps text COPY cannot carry raw (tabs, newlines, backslashes, \\N) and non-ASCII exactly as hashed', async () => {
    const orgId = randomUUID();
    const tricky = { tab: 'a\tb', nl: 'line1\nline2\r\n', bs: 'C:\\path\\N', nulText: '\\N', bidi: '\u202Eevil', emoji: '🦅', nested: { deep: ['\\', '\t'] } };
    await audit.ingest(orgId, [{ eventType: 'app.tricky.text', businessData: tricky, appGroupId: 'ag\tone' }]);
    const [record] = await readChain(db().knex, orgId);
    expect(record.businessData).toEqual(tricky);
    expect(record.appGroupId).toBe('ag\tone');
    expect(verifyRecords([record]).ok).toBe(true);
  });

  it('reads back the times it sealed at the ends of the allowed range (years 0001 and 9999, before 1970) exactly; year 0 is refused, nothing written', async () => {
    const orgId = randomUUID();
    const times = ['0001-01-01T00:00:00.000Z', '0001-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.001Z', '9999-12-31T23:59:59.999Z'];
    await audit.ingest(orgId, times.map((t) => ({ eventType: 'app.edge.time', occurredAt: new Date(t) })));
    const chain = await readChain(db().knex, orgId);
    expect(chain.map((r) => r.occurredAt)).toEqual(times);
    expect(verifyRecords(chain).ok).toBe(true);
    const refused = await audit.ingest(orgId, [{ eventType: 'app.edge.time', occurredAt: new Date('0000-12-31T23:59:59.999Z') }]).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', fields: { field: 'events[0].occurredAt' } });
    expect(await readChain(db().knex, orgId)).toHaveLength(times.length);
  });

  it('stores and hashes what JSON renders: a Date as its ISO text, undefined members dropped, array holes as null', async () => {
    const orgId = randomUUID();
    // eslint-disable-next-line no-sparse-arrays
    await audit.ingest(orgId, [{ eventType: 'app.rendered.json', businessData: { at: new Date(0), gone: undefined, holes: [, 1], plain: [1, 2] } }]);
    const [record] = await readChain(db().knex, orgId);
    expect(record.businessData).toEqual({ at: '1970-01-01T00:00:00.000Z', holes: [null, 1], plain: [1, 2] });
    expect(verifyRecords([record]).ok).toBe(true);
  });

  it('shares one chain with the outbox sealer: mixed versions, gap-free, verifying end to end', async () => {
    const orgId = randomUUID();
    await append(orgId, 4);
    await aerie.kernel.auditSealer.drain();
    await audit.ingest(orgId, events(5));
    await append(orgId, 2);
    await aerie.kernel.auditSealer.drain();
    await audit.ingest(orgId, events(1));
    const chain = await readChain(db().knex, orgId);
    expect(chain.map((r) => [r.seq, r.hashVersion ?? 1])).toEqual([
      [1, 1], [2, 1], [3, 1], [4, 1], [5, 2], [6, 2], [7, 2], [8, 2], [9, 2], [10, 1], [11, 1], [12, 2],
    ]);
    expect(verifyRecords(chain)).toMatchObject({ ok: true, checked: 12 });
  });

  it('never forks the chain when ingests race each other and the sealer', async () => {
    const orgId = randomUUID();
    await append(orgId, 600);
    await Promise.all([
      aerie.kernel.auditSealer.drain(),
      ...Array.from({ length: 4 }, (_, k) => audit.ingest(orgId, events(k % 2 ? 300 : 7, `batch-${k}`))),
      append(orgId, 50).then(() => aerie.kernel.auditSealer.drain()),
    ]);
    await aerie.kernel.auditSealer.drain();
    const chain = await readChain(db().knex, orgId);
    expect(chain).toHaveLength(600 + 300 + 7 + 300 + 7 + 50);
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: chain.length }, (_, i) => i + 1));
    expect(new Set(chain.map((r) => r.id)).size).toBe(chain.length);
    expect(verifyRecords(chain).ok).toBe(true);
    // Each batch's events sit together, in request order.
    for (let k = 0; k < 4; k++) {
      const mine = chain.filter((r) => r.businessData.tag === `batch-${k}`);
      expect(mine.map((r) => r.businessData.i)).toEqual(Array.from({ length: mine.length }, (_, i) => i));
      expect(mine.at(-1)!.seq - mine[0].seq).toBe(mine.length - 1);
    }
  });

  it('keeps idempotency keys per organization: the same key seals in another organization', async () => {
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const a = await audit.ingest(orgA, events(2), { idempotencyKey: 'k-1' });
    const b = await audit.ingest(orgB, events(2), { idempotencyKey: 'k-1' });
    expect([a.replayed, b.replayed]).toEqual([false, false]);
    expect((await audit.ingest(orgA, events(2), { idempotencyKey: 'k-1' })).ids).toEqual(a.ids);
    expect(await aerie.sql(`select org_id, key, first_seq, last_seq from core.audit_ingest_keys where key = 'k-1' order by first_seq, org_id`))
      .toEqual(expect.arrayContaining([{ org_id: orgA, key: 'k-1', first_seq: 1, last_seq: 2 }, { org_id: orgB, key: 'k-1', first_seq: 1, last_seq: 2 }]));
  });

  it('refuses a batch holding one event that could not be sealed, naming it, and writes nothing', async () => {
    const orgId = randomUUID();
    await audit.ingest(orgId, events(2));
    const bad = [...events(3), { eventType: 'app.bad.event', businessData: { text: 'nul \u0000 inside' } }];
    const err = await audit.ingest(orgId, bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AerieError);
    expect(err).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', fields: expect.objectContaining({ field: 'events[3].businessData.text' }) });
    const [head] = await aerie.sql(`select seq from core.audit_heads where org_id = ?`, [orgId]);
    expect(Number(head.seq)).toBe(2);
    expect(await readChain(db().knex, orgId)).toHaveLength(2);
  });

  it('seals the same way when a worker pool renders the batch: tricky text, what JSON renders, replays, and the first problem in order', async () => {
    const { workers, tasks } = chainWorkers();
    const pooled = new AuditIngestor(db(), systemClock, pino({ level: 'silent' }), { pool: tasks, poolThreshold: 1 });
    try {
      const orgId = randomUUID();
      const tricky = { tab: 'a\tb', nl: 'l1\r\nl2', bs: 'C:\\N', emoji: '🦅', at: new Date(0), gone: undefined };
      const first = await pooled.ingest(orgId, [{ eventType: 'app.pooled', businessData: tricky, appGroupId: 'ag\tone' }, ...events(2)], { idempotencyKey: 'p-1' });
      const chain = await readChain(db().knex, orgId);
      expect(chain[0].businessData).toEqual({ tab: 'a\tb', nl: 'l1\r\nl2', bs: 'C:\\N', emoji: '🦅', at: '1970-01-01T00:00:00.000Z' });
      expect(chain.map((r) => r.id)).toEqual(first.ids);
      expect(verifyRecords(chain)).toMatchObject({ ok: true, checked: 3 });
      const again = await pooled.ingest(orgId, [{ eventType: 'app.pooled', businessData: tricky, appGroupId: 'ag\tone' }, ...events(2)], { idempotencyKey: 'p-1' });
      expect(again).toMatchObject({ replayed: true, ids: first.ids });
      const big = { eventType: 'app.big', businessData: { s: 'x'.repeat(70_000) } };
      const nul = { eventType: 'app.nul', businessData: { s: 'a\u0000' } };
      // The size check runs in the worker, the others in-line: still the first event in order is named.
      for (const [batch, field] of [[[...events(1), big, nul], 'events[1].businessData'], [[...events(1), nul, big], 'events[1].businessData.s'], [[...events(2), big], 'events[2].businessData']] as const) {
        await expect(pooled.ingest(orgId, [...batch])).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED', fields: { field } });
      }
      expect(await readChain(db().knex, orgId)).toHaveLength(3);
    } finally {
      await workers.close();
    }
  });

  it('rolls the whole batch back when the write fails, leaving the head where it was', async () => {
    const orgId = randomUUID();
    await audit.ingest(orgId, events(2));
    // A uuid column given a non-uuid organization id fails inside the transaction, after the head lock.
    await expect(audit.ingest('not-a-uuid', events(2))).rejects.toThrow();
    await audit.ingest(orgId, events(1));
    const chain = await readChain(db().knex, orgId);
    expect(chain.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(verifyRecords(chain).ok).toBe(true);
  });
});

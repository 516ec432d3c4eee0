import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { TestAerie } from '../../helpers/harness.ts';
import { startQuietAudit } from './quiet-audit.ts';
import { chainWorkers } from '../../helpers/chain-workers.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { lockHeads, takeAndRender } from '../../../core/audit/sealer-sql.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import {
  GENESIS_HASH, canonicalPayload, sealBatch, toAuditTimestamp, verifyRecords, type AuditRecordInput,
} from '../../../core/audit/chain/index.ts';

const SEALED_AT = '2026-10-16T09:00:00.000Z';

/** The records the sealer used to build from `select *` rows (knex-parsed jsonb, Date timestamps). */
function objectRecord(row: any, seq: number): AuditRecordInput {
  return {
    id: row.id, orgId: row.orgId, seq, eventType: row.eventType, occurredAt: toAuditTimestamp(new Date(row.occurredAt)),
    actor: { type: row.actorType, id: row.actorId }, ...(row.appGroupId ? { appGroupId: row.appGroupId } : {}), businessData: row.businessData,
  };
}

const tricky = [
  { eventType: 'test.unicode', occurredAt: new Date('1999-12-31T23:59:59.007Z'), actor: { type: 'account' as const, id: 'äccount-ü' },
    businessData: { text: 'ünïcødé ✓ 𝄞 😀 e\u0301 \u2028\u2029 עברית', 'ключ': 'значение', 'é': 1, 'e': 2, '😀': { '𝄞': true } } },
  { eventType: 'test.nested', appGroupId: 'ag_1',
    businessData: { deep: { a: [1, [2, [3, { b: null }]]], empty: {}, list: [] }, nums: [0, -5, 0.1, 1e21, 1.5e-7, 9007199254740991, -0], flags: [true, false, null] } },
  { eventType: 'test.escapes', actor: { type: 'apiKey' as const, id: 'key "1" \\ /' },
    businessData: { s: 'quote " backslash \\ slash / tab \t nl \n cr \r bell \u0007 del \u007f', '': 'empty key' } },
  { eventType: 'test.seal', actor: { type: 'machine' as const, id: 'm1' },
    businessData: { _humanSeal: { credentialId: 'cred_1', userId: randomUUID() }, amountMinor: 12345 } },
  { eventType: 'test.plain' },
  { eventType: 'test.empty-app-group', appGroupId: '' },
];

describe('sealer: PostgreSQL-rendered JSON text hashes exactly like the record objects', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  const { workers, tasks: pool } = chainWorkers();
  beforeAll(async () => {
    ({ aerie, audit } = await startQuietAudit());
  });
  afterAll(async () => {
    await workers.close();
    await aerie?.close();
  });

  it('gives identical payload and chain hashes on the JSON-text path and the object path, in-line and in the pool', async () => {
    const orgId = randomUUID();
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, tricky.map((e) => ({ orgId, ...e }))));
    await aerie.kernel.db.transaction(async (trx) => {
      const [rendered, ...others] = (await takeAndRender(trx, 10_000)).filter((b) => b.orgId === orgId);
      expect(others).toEqual([]);
      expect(rendered).toMatchObject({ orgId, count: tricky.length });
      const heads = await lockHeads(trx, [orgId], GENESIS_HASH);
      expect(heads.get(orgId)).toEqual({ orgId, seq: 0, chainHash: GENESIS_HASH });
      const rows = await trx('core.audit_outbox').where({ orgId }).orderBy('position');
      const objects = rows.map((row: any, i: number) => objectRecord(row, i + 1));
      const parsed = JSON.parse(rendered.records) as AuditRecordInput[];

      // Same hashed payload text record by record, so the hashes cannot differ.
      expect(parsed.map((r) => canonicalPayload({ ...r, sealedAt: SEALED_AT }))).toEqual(objects.map((r) => canonicalPayload({ ...r, sealedAt: SEALED_AT })));
      expect(parsed.filter((r) => r.appGroupId === null)).toHaveLength(tricky.length - 1); // '' included

      const fromObjects = sealBatch(GENESIS_HASH, objects, SEALED_AT);
      expect(sealBatch(GENESIS_HASH, parsed, SEALED_AT)).toEqual(fromObjects);
      expect(await pool.sealJson(GENESIS_HASH, rendered.records, SEALED_AT)).toEqual(fromObjects);
      expect(await pool.sealJson(GENESIS_HASH, JSON.stringify(objects), SEALED_AT)).toEqual(fromObjects);

      // A later batch: text numbered from 1, offset by the head's seq in the worker.
      const first = sealBatch(GENESIS_HASH, objects.slice(0, 2), SEALED_AT);
      const rest = JSON.stringify(parsed.slice(2).map((r, i) => ({ ...r, seq: i + 1 })));
      const expected = sealBatch(first.head.chainHash, objects.slice(2), SEALED_AT);
      expect(await pool.sealJson(first.head.chainHash, rest, SEALED_AT, 2)).toEqual(expected);
      expect(expected.head.seq).toBe(tricky.length);
    });
  });

  it('seals the tricky events through the sealer into a chain that verifies, data stored as appended', async () => {
    const orgId = randomUUID();
    const { ids } = await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, tricky.map((e) => ({ orgId, ...e }))));
    const before = await aerie.sql(`select id, business_data::text as data, occurred_at from core.audit_outbox where org_id = ? order by position`, [orgId]);
    expect(await aerie.kernel.auditSealer.drain()).toBeGreaterThanOrEqual(tricky.length);
    const chain = await readChain(aerie.kernel.db.knex, orgId);
    expect(chain.map((r) => r.id)).toEqual(ids);
    expect(chain.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(chain[1].appGroupId).toBe('ag_1');
    expect(chain.filter((r) => r.appGroupId === undefined || r.appGroupId === null)).toHaveLength(5);
    expect(chain.every((r) => r.sealedAt === chain[0].sealedAt)).toBe(true);
    expect(verifyRecords(chain).ok).toBe(true);
    const after = await aerie.sql(`select id, business_data::text as data, occurred_at from core.audit_events where org_id = ? order by seq`, [orgId]);
    expect(after).toEqual(before);
  });
});

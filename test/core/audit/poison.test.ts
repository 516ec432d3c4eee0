import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { TestAerie } from '../../helpers/harness.ts';
import { startQuietAudit } from './quiet-audit.ts';
import type { AuditEventInput, AuditService } from '../../../core/audit/audit-service.types.ts';
import { AuditSealer } from '../../../core/audit/sealer.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { verifyRecords } from '../../../core/audit/chain/index.ts';
import { chainWorkers } from '../../helpers/chain-workers.ts';
import { systemClock } from '../../../core/clock.ts';
import { AUDIT_MAX_DEPTH } from '../../../core/audit/sealable.ts';
import pino from 'pino';

/** An array nested `depth` levels deep: [[[…]]]. */
function nested(depth: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

// The path of the first level past the limit: businessData.a then 31 × [0].
const TOO_DEEP = `businessData.a${'[0]'.repeat(AUDIT_MAX_DEPTH - 1)}`;

/** businessData whose nesting is exactly `levels` deep, counting businessData itself. */
const deep = (levels: number) => ({ a: nested(levels - 1) });

describe('core.audit: an acknowledged event is sealable, and a poison event never stalls a chain', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  const count = async (table: string, orgId: string) => (await aerie.sql(`select count(*)::int as n from core.${table} where org_id = ?`, [orgId]))[0].n as number;
  beforeAll(async () => {
    ({ aerie, audit } = await startQuietAudit());
  });
  // With a worker pool for every batch, as the kernel's sealer uses for large ones.
  const { workers, tasks } = chainWorkers();
  afterAll(async () => {
    await workers.close();
    await aerie?.close();
  });

  const sealer = () => new AuditSealer(aerie.kernel.db, systemClock, pino({ level: 'silent' }), { batchSize: 500, poolThreshold: 1, pool: tasks });
  const stopAfter = async (s: AuditSealer) => {
    try {
      return await s.drain();
    } finally {
      await s.stop();
    }
  };

  const orgId = randomUUID();
  it.each<[string, Partial<AuditEventInput>, string]>([
    ['nesting 2,000 deep', { businessData: { a: nested(2000) } }, TOO_DEEP],
    ['nesting 5,000 deep', { businessData: { a: nested(5000) } }, TOO_DEEP],
    [`nesting ${AUDIT_MAX_DEPTH + 1} deep`, { businessData: deep(AUDIT_MAX_DEPTH + 1) }, TOO_DEEP],
    ['a NUL in a value', { businessData: { name: 'a\u0000b' } }, 'businessData.name'],
    ['a NUL in a key', { businessData: { 'a\u0000': 1 } }, 'businessData'],
    ['a lone surrogate', { businessData: { s: 'x\ud800y' } }, 'businessData.s'],
    ['NaN', { businessData: { n: NaN } }, 'businessData.n'],
    ['Infinity in an array', { businessData: { n: [1, Infinity] } }, 'businessData.n[1]'],
    ['a BigInt', { businessData: { n: 10n } }, 'businessData.n'],
    ['a Map', { businessData: { m: new Map() } }, 'businessData.m'],
    ['businessData an array', { businessData: [] as never }, 'businessData'],
    ['more than 64 KiB', { businessData: { s: 'x'.repeat(70_000) } }, 'businessData'],
    ['an empty eventType', { eventType: '' }, 'eventType'],
    ['a NUL in eventType', { eventType: 'test.a\u0000' }, 'eventType'],
    ['a NUL in the actor id', { actor: { type: 'account', id: 'a\u0000' } }, 'actor.id'],
    ['an orgId that is not a UUID', { orgId: 'acme' }, 'orgId'],
    ['an unknown actor type (the sealer would refuse to hash it)', { actor: { type: 'robot' as never, id: 'r1' } }, 'actor.type'],
    ['a NUL deep in arrays and objects', { businessData: { a: [{ b: [0, { c: 'x\u0000' }] }] } }, 'businessData.a[0].b[1].c'],
    ['undefined inside an array', { businessData: { list: [1, undefined] } }, 'businessData.list[1]'],
    ['an invalid date', { occurredAt: new Date(NaN) }, 'occurredAt'],
  ])('refuses %s with 400 VALIDATION_FAILED naming the field, and writes nothing', async (_name, change, field) => {
    const before = await count('audit_outbox', orgId);
    const event = { orgId, eventType: 'test.poison', ...change } as AuditEventInput;
    await expect(aerie.kernel.db.transaction((trx) => audit.append(trx, event))).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED', fields: { field } });
    await expect(aerie.kernel.db.transaction((trx) => audit.appendMany(trx, [{ orgId, eventType: 'test.ok' }, event])))
      .rejects.toMatchObject({ status: 400, fields: { field: `events[1].${field}` } });
    expect(await count('audit_outbox', orgId)).toBe(before);
  });

  it(`accepts nesting exactly ${AUDIT_MAX_DEPTH} deep, dates and undefined members, and seals them`, async () => {
    const org = randomUUID();
    await aerie.kernel.db.transaction((trx) => audit.append(trx, { orgId: org, eventType: 'test.deep', businessData: { ...deep(AUDIT_MAX_DEPTH), at: new Date(0), gone: undefined } }));
    expect(await stopAfter(sealer())).toBe(1);
    const [row] = await aerie.sql(`select business_data from core.audit_events where org_id = ?`, [org]);
    expect(row.business_data.at).toBe('1970-01-01T00:00:00.000Z');
    expect('gone' in row.business_data).toBe(false);
  });

  /** Good events of two organizations around poison rows written straight into the outbox. */
  async function outboxWithPoison(poisonSql: (orgId: string) => Promise<void>) {
    const [a, b] = [randomUUID(), randomUUID()];
    const good = (org: string, n: number, from = 0) => aerie.kernel.db.transaction((trx) =>
      audit.appendMany(trx, Array.from({ length: n }, (_, i) => ({ orgId: org, eventType: 'test.good', businessData: { i: from + i } }))));
    await good(a, 300);
    await good(b, 10);
    await poisonSql(a);
    await good(a, 300, 300);
    await good(b, 10, 10);
    return { a, b };
  }

  const inject = (org: string, columns: { actorType?: string; occurredAt?: string; businessData?: string }) => aerie.sql(
    `insert into core.audit_outbox (id, org_id, event_type, occurred_at, actor_type, actor_id, business_data)
     values (?, ?, 'test.poison', ${columns.occurredAt ?? 'now()'}, ?, 'system', ${columns.businessData ?? "'{}'"}::jsonb)`, [randomUUID(), org, columns.actorType ?? 'system']).then(() => undefined);
  const DEEP_JSON = `('{"a":' || repeat('[', 2000) || repeat(']', 2000) || '}')`;

  it('dead-letters events that can never hash, put straight into the outbox, and seals every other event of both organizations', async () => {
    const { a, b } = await outboxWithPoison(async (org) => {
      await inject(org, { actorType: 'robot' });
      await inject(org, { occurredAt: `'10000-01-01T00:00:00Z'` });
    });
    expect(await stopAfter(sealer())).toBe(620);
    for (const [org, n] of [[a, 600], [b, 20]] as const) {
      const chain = await readChain(aerie.kernel.db.knex, org);
      expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(chain.map((r) => r.businessData.i)).toEqual(Array.from({ length: n }, (_, i) => i));
      expect(verifyRecords(chain).ok).toBe(true);
      expect(await count('audit_outbox', org)).toBe(0);
    }
    expect(await aerie.sql(`select actor_type, reason from core.audit_dead_letters where org_id = ? order by position`, [a])).toEqual([
      { actor_type: 'robot', reason: expect.stringMatching(/actor must be/) },
      { actor_type: 'system', reason: expect.stringMatching(/occurredAt must be/) },
    ]);
  });

  it('never stalls on an event nested 2,000 deep put straight into the outbox (the reported attack): sealed or dead-lettered, never both, and everything else sealed', async () => {
    const { a, b } = await outboxWithPoison((org) => inject(org, { businessData: DEEP_JSON }));
    await stopAfter(sealer());
    expect(await count('audit_outbox', a) + await count('audit_outbox', b)).toBe(0);
    expect(await count('audit_events', b)).toBe(20);
    const deepSealed = (await aerie.sql(`select count(*)::int as n from core.audit_events where org_id = ? and event_type = 'test.poison'`, [a]))[0].n;
    const deepDead = await count('audit_dead_letters', a);
    expect(deepSealed + deepDead).toBe(1);
    expect(await count('audit_events', a)).toBe(600 + deepSealed);
    const chain = await readChain(aerie.kernel.db.knex, a);
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 600 + deepSealed }, (_, i) => i + 1));
  });

  it('dead-letters an event whose id is sealed already (the database refuses it) and seals the rest', async () => {
    const { a, b } = await outboxWithPoison(async (org) => {
      const [{ id }] = await aerie.sql(`select id from core.audit_outbox where org_id = ? order by position limit 1`, [org]);
      await stopAfter(sealer());
      await aerie.sql(`insert into core.audit_outbox (id, org_id, event_type, occurred_at, actor_type, actor_id, business_data) values (?, ?, 'test.again', now(), 'system', 'system', '{}')`, [id, org]);
    });
    await stopAfter(sealer());
    expect(await count('audit_events', a)).toBe(600);
    expect(await count('audit_events', b)).toBe(20);
    expect(verifyRecords(await readChain(aerie.kernel.db.knex, a)).ok).toBe(true);
    expect(await aerie.sql(`select event_type, reason from core.audit_dead_letters where org_id = ?`, [a]))
      .toEqual([{ event_type: 'test.again', reason: expect.stringMatching(/duplicate key/) }]);
    expect(await count('audit_outbox', a) + await count('audit_outbox', b)).toBe(0);
  });

  it('retries a failure of the installation (not of the events) without dead-lettering anything, and seals once it is mended', async () => {
    const org = randomUUID();
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, Array.from({ length: 5 }, (_, i) => ({ orgId: org, eventType: 'test.held', businessData: { i } }))));
    const deadBefore = (await aerie.sql(`select count(*)::int as n from core.audit_dead_letters`))[0].n;
    await aerie.sql(`alter table core.audit_events add constraint test_refuse_all check (false) not valid`);
    const s = new AuditSealer(aerie.kernel.db, systemClock, pino({ level: 'silent' }));
    try {
      await expect(s.drain()).rejects.toThrow(/test_refuse_all/);
      expect(s.state()).toMatchObject({ state: 'failing', consecutiveFailures: 1, lastError: expect.stringMatching(/test_refuse_all/) });
      expect(await count('audit_outbox', org)).toBe(5);
    } finally {
      await aerie.sql(`alter table core.audit_events drop constraint test_refuse_all`);
    }
    expect((await aerie.sql(`select count(*)::int as n from core.audit_dead_letters`))[0].n).toBe(deadBefore);
    expect(await s.drain()).toBe(5);
    expect(s.state()).toMatchObject({ state: 'ok', consecutiveFailures: 0 });
    expect(verifyRecords(await readChain(aerie.kernel.db.knex, org)).ok).toBe(true);
  });
});

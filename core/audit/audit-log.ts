import type { Knex } from 'knex';
import type { JSONWebKeySet } from 'jose';
import type { SealedAuditRecord } from './chain/index.ts';
import { isUuid } from '../validation.ts';
import type { AuditCheckpointer } from './checkpointer.ts';
import { auditJwks, type PlatformAuditKey } from './platform-audit-key.ts';
import { readChain, sealedColumns, toSealedRecord } from './read-chain.ts';
import type { AuditLog, AuditSearch, StoredCheckpoint } from './audit-log.types.ts';
import { auditActivity, auditPulse, type AuditActivity, type AuditActivityWindow, type AuditPulse } from './audit-activity.ts';

/**
 * The kernel's {@link AuditLog} over `core.audit_events`, `core.audit_heads`,
 * `core.audit_checkpoints` and `core.platform_keys`.
 */
export class KernelAuditLog implements AuditLog {
  constructor(
    private readonly knex: Knex,
    private readonly checkpointer: AuditCheckpointer,
    private readonly loadKey: () => Promise<PlatformAuditKey>,
  ) {}

  records(orgId: string, range: { fromSeq?: number; toSeq?: number; limit?: number; eventTypes?: readonly string[] } = {}): Promise<SealedAuditRecord[]> {
    return readChain(this.knex, orgId, range);
  }

  async heads(): Promise<Array<{ orgId: string; seq: number }>> {
    const rows: Array<{ orgId: string; seq: string }> = await this.knex('core.audit_heads').select('orgId', 'seq');
    return rows.map((r) => ({ orgId: r.orgId, seq: Number(r.seq) }));
  }

  async eventTypeCounts(orgId: string, since: Date): Promise<Array<{ eventType: string; count: number; sealedCount: number }>> {
    const [sealed, pending] = (await Promise.all([
      this.knex('core.audit_events').where({ orgId }).andWhere('sealedAt', '>=', since).groupBy('eventType').select('eventType', this.knex.raw('count(*) as n')),
      this.knex('core.audit_outbox').where({ orgId }).andWhere('occurredAt', '>=', since).groupBy('eventType').select('eventType', this.knex.raw('count(*) as n')),
    ])) as Array<Array<{ eventType: string; n: string }>>;
    const types = new Map<string, { eventType: string; count: number; sealedCount: number }>();
    for (const s of sealed) types.set(s.eventType, { eventType: s.eventType, count: Number(s.n), sealedCount: Number(s.n) });
    for (const p of pending) {
      const t = types.get(p.eventType) ?? { eventType: p.eventType, count: 0, sealedCount: 0 };
      t.count += Number(p.n);
      types.set(p.eventType, t);
    }
    return [...types.values()].sort((a, b) => b.count - a.count || (a.eventType < b.eventType ? -1 : 1));
  }

  async sealedBetween(orgId: string, from: Date, to: Date): Promise<SealedAuditRecord[]> {
    const rows = await this.knex('core.audit_events').select(sealedColumns(this.knex)).where({ orgId }).andWhere('sealedAt', '>=', from).andWhere('sealedAt', '<', to).orderBy('seq');
    return rows.map(toSealedRecord);
  }

  async record(id: string): Promise<SealedAuditRecord | undefined> {
    if (!isUuid(id)) return undefined;
    const row = await this.knex('core.audit_events').select(sealedColumns(this.knex)).where({ id }).first();
    return row ? toSealedRecord(row) : undefined;
  }

  async search(orgId: string, f: AuditSearch): Promise<SealedAuditRecord[]> {
    const q = this.knex('core.audit_events').select(sealedColumns(this.knex)).where({ orgId }).andWhere('occurredAt', '>=', f.from).andWhere('occurredAt', '<=', f.to);
    const visible = f.visibleTo;
    if (visible) {
      q.where((w) => {
        w.where((s) => s.where('actorType', visible.actorType ?? 'account').andWhere('actorId', visible.accountId));
        for (const prefix of visible.prefixes) w.orWhere('eventType', 'like', `${prefix}%`);
      });
    }
    for (const prefix of f.excludePrefixes ?? []) q.whereNot('eventType', 'like', `${prefix}%`);
    if (f.eventTypes?.length) q.whereIn('eventType', f.eventTypes);
    const before = f.before;
    if (before) {
      q.where((w) => w.where('occurredAt', '<', before.occurredAt)
        .orWhere((e) => e.where('occurredAt', '=', before.occurredAt).andWhere('seq', '<', before.seq)));
    }
    const rows = await q.orderBy([{ column: 'occurredAt', order: 'desc' }, { column: 'seq', order: 'desc' }]).limit(f.limit);
    return rows.map(toSealedRecord);
  }

  async oldestOccurredAt(orgId: string): Promise<Date | undefined> {
    const oldest = await this.knex('core.audit_events').where({ orgId }).min({ at: 'occurredAt' }).first();
    return oldest?.at ? new Date(oldest.at) : undefined;
  }

  async headSeq(orgId: string): Promise<number> {
    const head = await this.knex('core.audit_heads').where({ orgId }).first();
    return head ? Number(head.seq) : 0;
  }

  async checkpoints(orgId: string, range: { fromSeq?: number; toSeq?: number } = {}): Promise<StoredCheckpoint[]> {
    const q = this.knex('core.audit_checkpoints').where({ orgId });
    if (range.fromSeq !== undefined) q.andWhere('seq', '>=', range.fromSeq);
    if (range.toSeq !== undefined) q.andWhere('seq', '<=', range.toSeq);
    const rows = await q.orderBy('seq').orderBy('id');
    return rows.map((r: Record<string, any>) => ({ id: String(r.id), seq: Number(r.seq), kid: r.kid, jws: r.jws, createdAt: new Date(r.createdAt) }));
  }

  jwks(): Promise<JSONWebKeySet> {
    return auditJwks(this.knex);
  }

  async ensureSigningKey(): Promise<void> {
    await this.loadKey();
  }

  async flushCheckpoints(orgId: string): Promise<void> {
    await this.checkpointer.flush(orgId);
  }

  async lastSeqSealedBefore(orgId: string, at: Date): Promise<number> {
    const row = await this.knex('core.audit_events').where({ orgId }).andWhere('sealedAt', '<', at).max({ seq: 'seq' }).first();
    return Number(row?.seq ?? 0);
  }

  async sealedDays(from: Date, to: Date): Promise<Array<{ orgId: string; day: string }>> {
    const { rows } = await this.knex.raw(
      `select distinct org_id as "orgId", to_char(sealed_at at time zone 'UTC', 'YYYY-MM-DD') as day
         from core.audit_events where sealed_at >= ? and sealed_at < ? order by 1, 2`,
      [from, to],
    );
    return rows as Array<{ orgId: string; day: string }>;
  }

  async purgeRange(trx: Knex.Transaction, orgId: string, fromSeq: number, throughSeq: number): Promise<number> {
    const { rows } = await trx.raw(
      'with purged as (delete from core.audit_events where org_id = ? and seq >= ? and seq <= ? returning 1) select count(*)::int as n from purged',
      [orgId, fromSeq, throughSeq],
    );
    return Number(rows[0].n);
  }

  activity(orgId: string, window: AuditActivityWindow): Promise<AuditActivity> {
    return auditActivity(this.knex, orgId, window);
  }

  pulse(orgId: string, at: { now: Date; todayStart: Date; excludePrefixes?: readonly string[]; backlogCap: number }): Promise<AuditPulse> {
    return auditPulse(this.knex, orgId, at);
  }

  async signCheckpoint(record: SealedAuditRecord): Promise<void> {
    await this.checkpointer.signHead({ orgId: record.orgId, seq: record.seq, chainHash: record.chainHash, sealedAt: record.sealedAt });
  }
}

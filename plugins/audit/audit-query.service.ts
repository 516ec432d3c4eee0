import type { JSONWebKeySet } from 'jose';
import { coreRefs, inject, injectable, type AuditLog, type Database, type SealedAuditRecord } from '../../core/index.ts';
import type { AuditEventItem, AuditEventPage, AuditPageRequest, AuditQueryService } from './api.ts';
import { auditErrors } from './errors.ts';
import { exportDay } from './export-day.ts';
import { verifyStoredChain, verifyStoredRecord, type StoredChainReport, type StoredRecordVerification } from './stored-verification.ts';
import { OWNER_ONLY_PREFIXES, type AuditVisibility } from './visibility.ts';
import { readPurgeHorizon, type PurgeHorizon } from './purge-horizon.ts';

/** Only the owner sees these event types, on every path. @see docs/audit.md */

const encodeCursor = (occurredAt: string, seq: number) => Buffer.from(JSON.stringify({ o: occurredAt, s: seq })).toString('base64url');

function decodeCursor(cursor: string): { occurredAt: Date; seq: number } {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof c.o === 'string' && !Number.isNaN(Date.parse(c.o)) && Number.isSafeInteger(c.s)) return { occurredAt: new Date(c.o), seq: c.s };
  } catch { /* fall through */ }
  throw auditErrors.invalid('cursor', 'is not a cursor this server issued');
}

/** The public shape of a sealed record (no hashes). */
export function toAuditEventItem(r: SealedAuditRecord): AuditEventItem {
  return {
    id: r.id, seq: r.seq, eventType: r.eventType, occurredAt: r.occurredAt, actor: r.actor, appGroupId: r.appGroupId ?? null,
    businessData: r.businessData as Record<string, unknown>, sealedAt: r.sealedAt,
  };
}

/** {@link AuditQueryService} over the kernel's `core.auditLog`. */
@injectable()
export class AuditQueries implements AuditQueryService {
  constructor(@inject(coreRefs.auditLog.id) private readonly log: AuditLog, @inject(coreRefs.db.id) private readonly db: Database) {}

  async page(orgId: string, v: AuditVisibility, request: AuditPageRequest): Promise<AuditEventPage> {
    const records = await this.log.search(orgId, {
      from: request.from, to: request.to, eventTypes: request.eventTypes, limit: request.limit + 1,
      visibleTo: v.wholeOrg ? undefined : { accountId: v.self, actorType: v.selfType, prefixes: v.prefixes },
      excludePrefixes: v.owner ? [] : OWNER_ONLY_PREFIXES,
      before: request.cursor ? decodeCursor(request.cursor) : undefined,
    });
    const items = records.slice(0, request.limit).map(toAuditEventItem);
    const last = items.at(-1);
    return { items, nextCursor: records.length > request.limit && last ? encodeCursor(last.occurredAt, last.seq) : null };
  }

  async event(orgId: string, id: string): Promise<SealedAuditRecord | undefined> {
    const record = await this.log.record(id);
    return record?.orgId === orgId ? record : undefined;
  }

  record(logId: string): Promise<SealedAuditRecord | undefined> {
    return this.log.record(logId);
  }

  oldestOccurredAt(orgId: string): Promise<Date | undefined> {
    return this.log.oldestOccurredAt(orgId);
  }

  async verifyRecord(record: SealedAuditRecord): Promise<StoredRecordVerification> {
    return verifyStoredRecord(this.log, record, await this.log.jwks(), await readPurgeHorizon(this.db.knex, record.orgId));
  }

  async verifyChain(orgId: string, options: { fromSeq?: number; jwks?: JSONWebKeySet } = {}): Promise<StoredChainReport> {
    return verifyStoredChain(this.log, orgId, options.jwks ?? (await this.log.jwks()), options.fromSeq ?? 1, await readPurgeHorizon(this.db.knex, orgId));
  }

  purgeHorizon(orgId: string): Promise<PurgeHorizon | undefined> {
    return readPurgeHorizon(this.db.knex, orgId);
  }

  exportDay(orgId: string, day: string): Promise<string> {
    return exportDay(this.log, orgId, day);
  }

  jwks(): Promise<JSONWebKeySet> {
    return this.log.jwks();
  }
}

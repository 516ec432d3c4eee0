import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import { currentRequest } from '../request-context.ts';
import type { AuditActorRef, AuditEventInput, AuditService } from './audit-service.types.ts';

const ACTOR_TYPES = new Set(['account', 'apiKey', 'machine', 'agent']);

/**
 * `core.audit`: writes events to `core.audit_outbox` in the caller's transaction. The actor defaults
 * from the current request's principal (`system` outside requests) and `businessData._humanSeal`
 * is added when the request passed a passkey seal, so it is covered by the hashes once sealed.
 * @see spec 01 "Audit" (human seal marker), ARCHITECTURE.md "The audit chain"
 */
export class OutboxAuditService implements AuditService {
  constructor(private readonly clock: Clock) {}

  async append(trx: Knex.Transaction | Knex, event: AuditEventInput): Promise<{ id: string }> {
    const { ids } = await this.appendMany(trx, [event]);
    return { id: ids[0] };
  }

  async appendMany(trx: Knex.Transaction | Knex, events: AuditEventInput[]): Promise<{ ids: string[] }> {
    if (events.length === 0) return { ids: [] };
    const scope = currentRequest();
    const defaultActor = actorOf(scope?.principal);
    const now = this.clock.now();
    const rows = events.map((e) => {
      if (!e.orgId) throw new Error(`audit event ${e.eventType} has no orgId`);
      const businessData = { ...(e.businessData ?? {}) };
      if (scope?.humanSeal) businessData._humanSeal = { ...scope.humanSeal };
      const actor = e.actor ?? defaultActor;
      return {
        id: randomUUID(), orgId: e.orgId, eventType: e.eventType, occurredAt: e.occurredAt ?? now,
        actorType: actor.type, actorId: actor.id, appGroupId: e.appGroupId ?? null, businessData: JSON.stringify(businessData),
      };
    });
    await trx('core.audit_outbox').insert(rows);
    return { ids: rows.map((r) => r.id) };
  }
}

function actorOf(principal: { type: string; id: string } | null | undefined): AuditActorRef {
  if (!principal) return { type: 'system', id: 'system' };
  return ACTOR_TYPES.has(principal.type) ? { type: principal.type as AuditActorRef['type'], id: principal.id } : { type: 'system', id: principal.id };
}

import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import { validationFailed } from '../errors.ts';
import { currentRequest } from '../request-context.ts';
import type { AppendOptions, AuditActorRef, AuditEventInput, AuditService } from './audit-service.types.ts';
import { checkSealable } from './sealable.ts';

const ACTOR_TYPES = new Set(['account', 'apiKey', 'machine', 'agent']);

/**
 * One statement, one bound parameter (the JSON array of rows) whatever the batch size — instead of
 * ~8 parameters per row that the driver would bind and the server parse. `with ordinality … order
 * by` keeps `position` (the sealing order) in the array's order. Timestamps travel as ISO 8601 text
 * (`Date.prototype.toJSON`), `business_data` as a nested JSON object. `jsonb` rather than `json`:
 * the array is parsed once and `business_data` is taken as already-parsed `jsonb` instead of being
 * re-parsed per row — measured ~20 % more events/s (27 k vs 22.6 k/s, 1,000-event batches).
 */
const INSERT_OUTBOX = `insert into core.audit_outbox (id, org_id, event_type, occurred_at, actor_type, actor_id, app_group_id, business_data)
  select r.id, r.org_id, r.event_type, r.occurred_at, r.actor_type, r.actor_id, r.app_group_id, r.business_data
  from jsonb_populate_recordset(null::core.audit_outbox, ?::jsonb) with ordinality as r
  order by r.ordinality`;

/**
 * `core.audit`: writes events to `core.audit_outbox` in the caller's transaction. The actor defaults
 * from the current request's principal (`system` outside requests) and `businessData._humanSeal`
 * is added when the request passed a passkey seal, so it is covered by the hashes once sealed.
 * Every event is checked before anything is written (`./sealable.ts`): an event the outbox accepts
 * always hashes, so no event can stall the sealer.
 * @see docs/audit.md (human seal marker), docs/audit.md
 */
export class OutboxAuditService implements AuditService {
  constructor(private readonly clock: Clock) {}

  async append(trx: Knex.Transaction | Knex, event: AuditEventInput, options?: AppendOptions): Promise<{ id: string }> {
    const { ids } = await this.write(trx, [event], options, (field) => field);
    return { id: ids[0] };
  }

  appendMany(trx: Knex.Transaction | Knex, events: AuditEventInput[], options?: AppendOptions): Promise<{ ids: string[] }> {
    return this.write(trx, events, options, (field, i) => `events[${i}].${field}`);
  }

  private async write(trx: Knex.Transaction | Knex, events: AuditEventInput[], options: AppendOptions = {}, fieldOf: (field: string, i: number) => string): Promise<{ ids: string[] }> {
    if (events.length === 0) return { ids: [] };
    events.forEach((e, i) => {
      const checked = checkSealable(e, options.maxBusinessDataBytes);
      if ('problem' in checked) {
        const field = fieldOf(checked.problem.field, i);
        throw validationFailed(`${field} ${checked.problem.rule}`, field);
      }
    });
    const scope = currentRequest();
    const defaultActor = actorOf(scope?.principal);
    const now = this.clock.now();
    const rows = events.map((e) => {
      const businessData = { ...(e.businessData ?? {}) };
      if (scope?.humanSeal) businessData._humanSeal = { ...scope.humanSeal };
      const actor = e.actor ?? defaultActor;
      // Keys are the outbox's column names: json_populate_recordset matches them by name.
      return {
        id: randomUUID(), org_id: e.orgId, event_type: e.eventType, occurred_at: e.occurredAt ?? now,
        actor_type: actor.type, actor_id: actor.id, app_group_id: e.appGroupId ?? null, business_data: businessData,
      };
    });
    await trx.raw(INSERT_OUTBOX, [JSON.stringify(rows)]);
    return { ids: rows.map((r) => r.id) };
  }
}

function actorOf(principal: { type: string; id: string } | null | undefined): AuditActorRef {
  if (!principal) return { type: 'system', id: 'system' };
  return ACTOR_TYPES.has(principal.type) ? { type: principal.type as AuditActorRef['type'], id: principal.id } : { type: 'system', id: principal.id };
}

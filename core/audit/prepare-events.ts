/**
 * The checks and defaults every audit write applies, whichever way it is sealed (outbox or batch
 * ingestion): each event is checked sealable before anything is written, the actor defaults from
 * the current request's principal (`system` outside requests), and `businessData._humanSeal` is
 * added when the request passed a passkey seal, so the hashes cover it.
 *
 * @see docs/audit.md ("Limits of an event", "Human seal marker")
 */
import { randomUUID } from 'node:crypto';
import { validationFailed } from '../errors.ts';
import { currentRequest } from '../request-context.ts';
import type { AppendOptions, AuditActorRef, AuditEventInput } from './audit-service.types.ts';
import { checkSealable, checkSealableShape, type SealableProblem } from './sealable.ts';
import { canonicalJson } from './chain/canonical-json.ts';

const ACTOR_TYPES = new Set(['account', 'apiKey', 'machine', 'agent']);

/**
 * One event ready to be written, keyed by `core.audit_outbox` / `core.audit_events` column names.
 * `occurred_at` is a Date (millisecond precision); `app_group_id` null when absent.
 */
export interface PreparedEvent {
  id: string;
  org_id: string;
  event_type: string;
  occurred_at: Date;
  actor_type: AuditActorRef['type'];
  actor_id: string;
  app_group_id: string | null;
  business_data: Record<string, unknown>;
}

/**
 * Checks every event and gives each an id, its actor and time.
 * @param events - the events, in order.
 * @param now - `occurredAt` of events without one.
 * @param options - {@link AppendOptions} (a tighter `businessData` limit).
 * @param fieldOf - names a problem's field for the error (`events[3].businessData.a`).
 * @param canonicalize - false: every rule but the canonical form and its size limit, which the
 *   caller then applies itself (batch ingestion in the worker pool); `canonical` is answered empty.
 *   A problem is still reported for the first event that breaks any rule, in order.
 * @returns `{ rows, canonical }`: the prepared rows, in order, and each row's `business_data` as
 *   RFC 8785 text (the sealability check computes it; batch ingestion hashes with it).
 * @throws AerieError 400 `VALIDATION_FAILED` with `field` for the first event that could not be sealed.
 */
export function prepareEvents(events: AuditEventInput[], now: Date, options: AppendOptions, fieldOf: (field: string, i: number) => string, canonicalize = true): { rows: PreparedEvent[]; canonical: string[] } {
  const refuse = (problem: SealableProblem, i: number) => {
    const field = fieldOf(problem.field, i);
    return validationFailed(`${field} ${problem.rule}`, field);
  };
  const canonical: string[] = [];
  for (let i = 0; i < events.length; i++) {
    const checked = canonicalize ? checkSealable(events[i], options.maxBusinessDataBytes) : checkSealableShape(events[i]);
    if ('problem' in checked) {
      // Without the size check so far, an earlier event may break it: the first problem in order wins.
      for (let k = 0; !canonicalize && k < i; k++) {
        const earlier = checkSealable(events[k], options.maxBusinessDataBytes);
        if ('problem' in earlier) throw refuse(earlier.problem, k);
      }
      throw refuse(checked.problem, i);
    }
    if ('canonical' in checked) canonical.push(checked.canonical);
  }
  const scope = currentRequest();
  const defaultActor = actorOf(scope?.principal);
  const rows = events.map((e, i) => {
    // Written as JSON text (a Date as its ISO text, undefined members dropped): the values `canonical`
    // holds. The caller's object is not copied (nothing here changes it) unless a seal marker is added.
    let businessData: Record<string, unknown> = e.businessData ?? {};
    if (scope?.humanSeal) {
      businessData = { ...businessData, _humanSeal: { ...scope.humanSeal } };
      if (canonicalize) canonical[i] = canonicalJson(businessData);
    }
    const actor = e.actor ?? defaultActor;
    return {
      id: randomUUID(), org_id: e.orgId, event_type: e.eventType, occurred_at: e.occurredAt ?? now,
      actor_type: actor.type, actor_id: actor.id, app_group_id: e.appGroupId || null, business_data: businessData,
    };
  });
  return { rows, canonical };
}

function actorOf(principal: { type: string; id: string } | null | undefined): AuditActorRef {
  if (!principal) return { type: 'system', id: 'system' };
  return ACTOR_TYPES.has(principal.type) ? { type: principal.type as AuditActorRef['type'], id: principal.id } : { type: 'system', id: principal.id };
}

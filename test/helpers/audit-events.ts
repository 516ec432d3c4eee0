import type { TestAerie } from './harness.ts';

/** An audit event as stored (outbox, or the sealed chain once a sealer drained it). */
export interface StoredAuditEvent {
  eventType: string;
  actorType: string;
  actorId: string | null;
  businessData: Record<string, any>;
}

/**
 * An organization's audit events, pending in the outbox or already sealed, oldest first
 * (`occurredAt`, then outbox position / chain seq); only `types` when any are given.
 * @param org - `{ id }` or `{ slug }` of the organization.
 */
export async function auditEvents(aerie: TestAerie, org: { id: string } | { slug: string }, ...types: string[]): Promise<StoredAuditEvent[]> {
  const where = 'id' in org ? 'x.org_id = ?' : 'x.org_id = (select id from orgs.organizations where slug = ?)';
  const rows = await aerie.sql(
    `select event_type, actor_type, actor_id, business_data from (
       select e.event_type, e.actor_type, e.actor_id, e.business_data, e.occurred_at, e.org_id, lpad(e.position::text, 20, '0') as k from core.audit_outbox e
       union all
       select e.event_type, e.actor_type, e.actor_id, e.business_data, e.occurred_at, e.org_id, lpad(e.seq::text, 20, '0') from core.audit_events e
     ) x where ${where} order by x.occurred_at, x.k`,
    ['id' in org ? org.id : org.slug],
  );
  return rows
    .filter((r) => types.length === 0 || types.includes(r.event_type))
    .map((r) => ({ eventType: r.event_type, actorType: r.actor_type, actorId: r.actor_id, businessData: r.business_data }));
}

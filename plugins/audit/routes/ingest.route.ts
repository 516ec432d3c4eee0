import { DAY_MS, reply, route, type AuditService, type Clock, type RouteDef } from '../../../core/index.ts';
import { auditErrors } from '../errors.ts';
import { ingestBody } from '../schemas/ingest.body.ts';
import { ingestResponse } from '../schemas/responses.ts';

/**
 * The namespaces an API key writes: the application's own events (`app.`), the browsing events
 * audit analytics reads (`behavior.`) and anything else the application names (`custom.`). Every
 * other namespace (`org.`, `auth.`, `seal.`, `payment.`, `agent.`, `business.`, `appgroup.`, …) is
 * Aerie's own: a key must not put words in the platform's mouth on the chain.
 */
export const KEY_NAMESPACES = ['app.', 'behavior.', 'custom.'];
/** Largest `businessData` of one ingested event (canonical JSON bytes). */
export const MAX_BUSINESS_DATA_BYTES = 16_384;
/** How far an `occurredAt` may lie in the future or the past. */
const MAX_SKEW_MS = 5 * 60_000;
const MAX_AGE_MS = 90 * DAY_MS;


/**
 * `POST /api/public/v1/audit/events` (organization API key, `apiKey` scheme): up to 1,000
 * application events, all validated first (including `core.audit`'s sealability checks; 400 names
 * the first bad index, nothing is written), then sealed on the organization's chain in one
 * transaction by `core.audit.ingest` (no outbox); the actor is the key (`apiKey`), an
 * app-group-scoped key tags every event with its app group. Answers 201
 * `{ accepted, ids, firstSeq, lastSeq, chainHash, sealedAt, replayed }` once the events are sealed
 * (ids in request order, at seqs firstSeq..lastSeq; chainHash is the record at lastSeq's). With an
 * `Idempotency-Key` header, a retry within 24 hours answers the first result (`replayed: true`,
 * header `Idempotent-Replayed: true`) or 422 `IDEMPOTENCY_KEY_REUSED` when its events differ.
 * @see docs/api/audit.md "Ingestion"
 */
export function ingestRoute(audit: AuditService, clock: Clock): RouteDef {
  return route({
    method: 'POST', path: '/api/public/v1/audit/events', auth: 'apiKey', body: ingestBody,
    response: { 201: ingestResponse },
    summary: 'Ingest a batch of application audit events (up to 1,000)', tags: ['audit'],
    handler: async ({ body, principal, request }) => {
      const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key']);
      const orgId = principal.orgId!;
      const appGroupId = (principal as { appGroupId?: string }).appGroupId;
      const now = clock.now().getTime();
      const events = body.events.map((e, i) => {
        const at = `events[${i}]`;
        if (!KEY_NAMESPACES.some((p) => e.eventType.startsWith(p))) {
          throw auditErrors.invalid(`${at}.eventType`, `must start with ${KEY_NAMESPACES.join(', ')} (the other namespaces are Aerie's own events)`);
        }
        const occurredAt = e.occurredAt ? new Date(e.occurredAt) : undefined;
        if (occurredAt && (occurredAt.getTime() > now + MAX_SKEW_MS || occurredAt.getTime() < now - MAX_AGE_MS)) {
          throw auditErrors.invalid(`${at}.occurredAt`, 'must be within the last 90 days and not in the future');
        }
        if (Object.keys(e.businessData ?? {}).some((k) => k.startsWith('_'))) {
          throw auditErrors.invalid(`${at}.businessData`, 'top-level keys starting with _ are reserved');
        }
        return { eventType: e.eventType, occurredAt, appGroupId, actor: { type: 'apiKey' as const, id: principal.id }, businessData: e.businessData ?? {} };
      });
      // ingest checks every event can be sealed (depth, size, NUL, non-finite numbers) before
      // writing: 400 `VALIDATION_FAILED` naming `events[i].…`, nothing written.
      const sealed = await audit.ingest(orgId, events, { maxBusinessDataBytes: MAX_BUSINESS_DATA_BYTES, idempotencyKey });
      return reply(201, { accepted: sealed.ids.length, ...sealed }, sealed.replayed ? { 'idempotent-replayed': 'true' } : {});
    },
  });
}

/** Visible ASCII, 1–255 characters (draft-ietf-httpapi-idempotency-key-header). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` header, if sent.
 * @throws AerieError 400 `VALIDATION_FAILED` (`field` `Idempotency-Key`) when sent twice or not 1–255 visible ASCII characters.
 */
function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) throw auditErrors.invalid('Idempotency-Key', 'must be 1 to 255 visible ASCII characters, sent once');
  return header;
}

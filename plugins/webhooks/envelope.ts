import { Webhook } from 'standardwebhooks';
import type { SealedAuditRecord } from '../../core/index.ts';

/**
 * The body Aerie POSTs: `{ id, type, timestamp, data }` — `id` the delivery id (`msg_…`, also the
 * `webhook-id` header; de-duplicate on it), `type` the audit event type, `timestamp` when the event
 * occurred (ISO 8601 UTC), `data` the sealed event with its chain position and hashes.
 * @see docs/api/webhooks.md "The envelope"
 */
export interface WebhookEnvelope {
  id: string;
  type: string;
  timestamp: string;
  data: {
    auditEventId: string;
    orgId: string;
    seq: number;
    occurredAt: string;
    sealedAt: string;
    actor: { type: string; id: string };
    appGroupId: string | null;
    payloadHash: string;
    chainHash: string;
    payload: Record<string, unknown>;
  };
}

/**
 * The serialised envelopes of one record, one per delivery id: the record is serialised once and
 * each id is put in front (the same JSON as `JSON.stringify(envelopeOf(id, record))`).
 */
export function envelopeBodies(record: SealedAuditRecord): (id: string) => string {
  const { id: _placeholder, ...rest } = envelopeOf('', record);
  const tail = JSON.stringify(rest).slice(1);
  return (id) => `{"id":${JSON.stringify(id)},${tail}`;
}

/** The envelope of one sealed audit record for delivery `id`. */
export function envelopeOf(id: string, record: SealedAuditRecord): WebhookEnvelope {
  return {
    id, type: record.eventType, timestamp: record.occurredAt,
    data: {
      auditEventId: record.id, orgId: record.orgId, seq: record.seq, occurredAt: record.occurredAt, sealedAt: record.sealedAt,
      actor: { type: record.actor.type, id: record.actor.id }, appGroupId: record.appGroupId ?? null,
      payloadHash: record.payloadHash, chainHash: record.chainHash, payload: record.businessData,
    },
  };
}

/**
 * Standard Webhooks headers for `body`, signed with `secret` (`whsec_…`) at `at`:
 * `webhook-id`, `webhook-timestamp` (Unix seconds), `webhook-signature` (`v1,<base64 HMAC-SHA256>`
 * over `{id}.{timestamp}.{body}`), produced by the `standardwebhooks` library.
 */
export function signedHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Aerie-Webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

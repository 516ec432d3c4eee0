import type { SealedAuditRecord } from '../../core/index.ts';
import { providerOf } from './day-rollup.ts';

/** Event types the hot end-user store projects, and the kind of row each becomes. @see docs/api/audit-analytics.md */
export const PROJECTED_TYPES = { 'org.end_user.signed_in': 'login', 'org.end_user.sign_in_failed': 'failure', 'org.end_user.created': 'signup' } as const;

/** A row's kind: `login`, `failure` or `signup`. */
export type ActivityKind = (typeof PROJECTED_TYPES)[keyof typeof PROJECTED_TYPES];

/**
 * One row of the hot end-user store (`analytics.end_user_activity`). Shape: `{ orgId, seq, kind,
 * appGroupId, endUserId, email (lower case), method (the provider word), reason (failures only), ip,
 * occurredAt }`, text fields null when absent.
 */
export interface ActivityRow {
  orgId: string;
  seq: number;
  kind: ActivityKind;
  appGroupId: string | null;
  endUserId: string | null;
  email: string | null;
  method: string | null;
  reason: string | null;
  ip: string | null;
  occurredAt: Date;
}

const text = (v: unknown, max = 320): string | null => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : null);

/**
 * The hot-store row of a sealed record, or undefined when it is none: another event type, a record
 * an API key wrote (ingestion cannot forge sign-ins), a signup not `via: self_signup`.
 * A pure function: the projector and the archive scan of the forensic trail share it.
 */
export function toActivity(r: SealedAuditRecord): ActivityRow | undefined {
  const kind: ActivityKind | undefined = PROJECTED_TYPES[r.eventType as keyof typeof PROJECTED_TYPES];
  const d = r.businessData;
  if (!kind || r.actor.type === 'apiKey' || (kind === 'signup' && d.via !== 'self_signup')) return undefined;
  return {
    orgId: r.orgId, seq: r.seq, kind, appGroupId: r.appGroupId ?? text(d.appGroupId, 64), endUserId: text(d.endUserId, 64),
    email: text(d.email)?.toLowerCase() ?? null, method: kind === 'signup' ? null : providerOf(d), reason: kind === 'failure' ? text(d.reason, 64) : null,
    ip: text(d.ip, 64), occurredAt: new Date(r.occurredAt),
  };
}

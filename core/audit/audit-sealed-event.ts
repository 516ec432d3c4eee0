/**
 * The domain event the kernel emits on `core.events` after each committed sealing transaction, in
 * the process that sealed: payload `{ heads: [{ orgId, seq }] }`, the chains that grew and their new
 * last positions. Subscribers (webhook delivery) use it to react at once; events sealed by another
 * process are not announced here, so subscribers also poll.
 * @see docs/plugins.md "Domain events"
 */
export const AUDIT_SEALED_EVENT = 'core.audit.sealed';

/** Payload of {@link AUDIT_SEALED_EVENT}. */
export interface AuditSealedPayload extends Record<string, unknown> {
  heads: Array<{ orgId: string; seq: number }>;
}

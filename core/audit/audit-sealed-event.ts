import type { EventBus } from '../events.ts';

/**
 * The domain event the kernel emits on `core.events` after each committed sealing transaction, in
 * the process that sealed: payload `{ heads: [{ orgId, seq }] }`, the chains that grew and their new
 * last positions. Subscribers (webhook delivery) use it to react at once; events sealed by another
 * process are not announced here, so subscribers also poll.
 * @see docs/plugins.md "Following the sealed chains"
 */
export const AUDIT_SEALED_EVENT = 'core.audit.sealed';

/** Payload of {@link AUDIT_SEALED_EVENT}. */
export interface AuditSealedPayload extends Record<string, unknown> {
  heads: Array<{ orgId: string; seq: number }>;
}

/**
 * Follows the sealed chains for a subscriber that works behind its own cursors: calls
 * `wake(heads)` with the chains this process sealed and their new last seq (each
 * {@link AUDIT_SEALED_EVENT}), `wake()` every `pollMs` (chains other processes sealed) and once at
 * once. The timer does not keep the process alive.
 * @param events - the kernel's event bus (`core.events`).
 * @returns a function that stops following.
 * @see docs/plugins.md "Following the sealed chains"
 */
export function followSealedChains(events: EventBus, pollMs: number, wake: (heads?: AuditSealedPayload['heads']) => void): () => void {
  const subscription = events.on(AUDIT_SEALED_EVENT).subscribe((e) => {
    const { heads } = e.payload as AuditSealedPayload;
    if (heads.length) wake(heads);
  });
  const timer = setInterval(() => wake(), pollMs);
  timer.unref();
  wake();
  return () => {
    subscription.unsubscribe();
    clearInterval(timer);
  };
}

import type { AuditEventInput } from '../../core/index.ts';
import { isEndUserEmail, normalizeEmail } from './email.ts';
import type { SignInContext, SignInFailure, SignInMethod } from './service-interfaces.ts';

/**
 * Failed sign-in attempts recorded per organization and client IP address per window (beyond, an
 * attempt is answered as always but not recorded): what bounds the audit events anonymous callers
 * can cause, on top of each method's own limits.
 * @see docs/api/endusers.md "Sign-in events"
 */
export const SIGN_IN_FAILURE_EVENTS_PER_IP = { points: 60, durationSeconds: 600 };

/** The optional members of a sign-in event: `ip` and `provider` when known and non-empty. */
function contextFields(context: SignInContext): { ip?: string; provider?: string } {
  return { ...(context.ip ? { ip: context.ip } : {}), ...(context.provider ? { provider: context.provider } : {}) };
}

/**
 * `org.end_user.signed_in`: `businessData` `{endUserId, appGroupId, clientKey, method, email,
 * ip?, provider?}` (`email` NFC, lowercase), on the app group.
 */
export function signedInEvent(
  orgId: string, signIn: { endUserId: string; appGroupId: string; clientKey: string; method: SignInMethod; emailNormalized: string }, context: SignInContext,
): AuditEventInput {
  const { endUserId, appGroupId, clientKey, method, emailNormalized } = signIn;
  return {
    orgId, appGroupId, eventType: 'org.end_user.signed_in',
    businessData: { endUserId, appGroupId, clientKey, method, email: emailNormalized, ...contextFields(context) },
  };
}

/**
 * `org.end_user.sign_in_failed`: `businessData` `{appGroupId, clientKey?, method, reason, email?,
 * endUserId?, ip?, provider?}`, on the app group. `email` is kept only when it is an address end
 * users may have (NFC, lowercase); never a code, a credential or a token.
 */
export function signInFailedEvent(orgId: string, failure: SignInFailure): AuditEventInput {
  const { appGroupId, clientKey, method, reason, endUserId } = failure;
  const email = failure.email === undefined ? undefined : normalizeEmail(failure.email);
  return {
    orgId, appGroupId, eventType: 'org.end_user.sign_in_failed',
    businessData: {
      appGroupId, ...(clientKey ? { clientKey } : {}), method, reason,
      ...(email !== undefined && isEndUserEmail(email) ? { email } : {}),
      ...(endUserId ? { endUserId } : {}), ...contextFields(failure),
    },
  };
}

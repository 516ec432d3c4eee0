import { aerieError, defineErrorCodes, notFound } from '../../core/index.ts';

/** The webhooks plugin's own error codes (documented in docs/api/webhooks.md). */
export const webhooksErrorCodes = defineErrorCodes('webhooks', {
  WEBHOOK_URL_REFUSED: { status: 400, description: 'the endpoint URL is not https, carries credentials, does not resolve, or reaches a private, loopback, link-local or metadata address' },
  WEBHOOK_EVENTS_INVALID: { status: 400, description: 'the event pattern list is empty or holds a malformed pattern' },
  WEBHOOK_LIMIT_REACHED: { status: 409, description: 'the organization already has 20 webhook endpoints' },
});

type WebhooksErrorCodes = typeof webhooksErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends WebhooksErrorCodes {}
}

/** Errors of the webhooks plugin. */
export const webhooksErrors = {
  endpointNotFound: () => notFound('Webhook endpoint not found.'),
  /** @see docs/api/webhooks.md "Where Aerie sends" */
  urlRefused: (reason: string, failureClass: string) => aerieError('WEBHOOK_URL_REFUSED', `The endpoint URL is refused: ${reason}.`, { field: 'url', reason: failureClass }),
  eventsInvalid: () => aerieError('WEBHOOK_EVENTS_INVALID', 'events must hold 1–50 patterns: "*", "prefix.*" or an event name (letters, digits, "_", "-", dot-separated).', { field: 'events' }),
  limitReached: (limit: number) => aerieError('WEBHOOK_LIMIT_REACHED', `An organization has at most ${limit} webhook endpoints; delete one first.`, { limit }),
};

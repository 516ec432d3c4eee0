import { route, type RateLimiter, type RouteDef } from '../../../core/index.ts';
import type { SecondDeviceService } from '../second-device.service.ts';
import type { StampsService } from '../stamps.service.ts';
import { secondDeviceConfirmBody, secondDeviceLinkBody } from '../schemas/bodies.ts';
import { secondDeviceParams } from '../schemas/params.ts';
import { secondDeviceOptionsResponse, secondDeviceRequest } from '../schemas/responses.ts';

const PERSON_ONLY = 'the computer that stamped polls its own second-device request; a machine token stamps nothing';

/**
 * Requests to the three key-less second-device routes per client address, shared between them: 60
 * in 10 minutes (a confirmation takes two; each `options` call issues a challenge). Counted before
 * the token is looked up, so guessing tokens spends the budget too.
 */
export const SECOND_DEVICE_LINK_REQUESTS_PER_IP = { points: 60, durationSeconds: 600 } as const;

/**
 * Second-device confirmation (rule 7). The computer polls `GET
 * /api/org/{slug}/approvals/second-device/{requestId}` (the approver only; anyone else 404). The
 * second device, not signed in, holds the one-time link's token (mailed, in the URL fragment) and
 * sends it in the body: `POST /api/approvals/second-device/options` (details and a content-bound
 * challenge excluding the stamping passkey; status `completing`), `…/confirm` (records the stamp),
 * `…/deny` ("this was not me"). The token is the credential, as a share link's is; the three answer
 * 429 `RATE_LIMITED` (with `Retry-After`) past {@link SECOND_DEVICE_LINK_REQUESTS_PER_IP} from one address.
 * @see spec 02 "Approvals" rule 7; docs/api/approvals.md "Second-device confirmation"
 */
export function secondDeviceRoutes(secondDevice: SecondDeviceService, stamps: StampsService, linksPerIp: RateLimiter): RouteDef[] {
  const link = { auth: 'public' as const, tags: ['approvals'] };
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/approvals/second-device/{requestId}', auth: 'session', org: true, personOnly: PERSON_ONLY, tags: ['approvals'],
      params: secondDeviceParams, response: secondDeviceRequest, summary: 'Poll a second-device confirmation (the approver who stamped)',
      handler: ({ org, params }) => secondDevice.poll(org.organization.id, params.requestId, org.membership.id),
    }),
    route({
      ...link, method: 'POST', path: '/api/approvals/second-device/options', body: secondDeviceLinkBody, response: secondDeviceOptionsResponse,
      summary: 'Second device: what was stamped, and a challenge for another passkey',
      handler: async ({ body, request }) => {
        await linksPerIp.consume(request.ip);
        return secondDevice.options(body.Token);
      },
    }),
    route({
      ...link, method: 'POST', path: '/api/approvals/second-device/confirm', body: secondDeviceConfirmBody, response: secondDeviceRequest,
      summary: 'Second device: confirm the stamp with another passkey',
      handler: async ({ body, request }) => {
        await linksPerIp.consume(request.ip);
        return stamps.confirm(body.Token, body.SealAssertionJson);
      },
    }),
    route({
      ...link, method: 'POST', path: '/api/approvals/second-device/deny', body: secondDeviceLinkBody, response: secondDeviceRequest,
      summary: 'Second device: "this was not me" — the stamp is never recorded',
      handler: async ({ body, request }) => {
        await linksPerIp.consume(request.ip);
        return secondDevice.deny(body.Token);
      },
    }),
  ];
}

import { route, type RateLimiter, type RouteDef } from '../../../core/index.ts';
import type { SharesService } from '../shares.service.ts';
import { fileIdParams, shareBody, shareTokenParams } from '../schemas/requests.ts';
import { share, sharedFile } from '../schemas/responses.ts';
import { keyOrg } from './org-key.ts';

/** Opens of share links per client IP address: 60 a minute (each is audited). */
export const SHARE_OPENS_PER_IP = { points: 60, durationSeconds: 60 } as const;

/**
 * Share links: the mode and rotation on the public API (`X-Api-Key`), and the key-less
 * `GET /api/public/share/{shareToken}` whose token is the credential (429 `RATE_LIMITED` past
 * {@link SHARE_OPENS_PER_IP}).
 * @see docs/api/files.md "Sharing"
 */
export function shareRoutes(shares: SharesService, opensPerIp: RateLimiter): RouteDef[] {
  return [
    route({
      method: 'PATCH', path: '/api/public/v1/files/{id}/share', auth: 'apiKey', params: fileIdParams, body: shareBody, response: share,
      summary: "Set a file's share mode (restricted or link_anyone)", tags: ['files'],
      handler: ({ principal, params, body }) => shares.setMode(keyOrg(principal), params.id, body.mode),
    }),
    route({
      method: 'POST', path: '/api/public/v1/files/{id}/share/rotate', auth: 'apiKey', params: fileIdParams, response: share,
      summary: "Give a file's share link a new token (earlier links die)", tags: ['files'],
      handler: ({ principal, params }) => shares.rotate(keyOrg(principal), params.id),
    }),
    route({
      method: 'GET', path: '/api/public/share/{shareToken}', auth: 'public', params: shareTokenParams, response: sharedFile,
      summary: 'What a share link opens: the file and a 10-minute content URL', tags: ['files'],
      handler: async ({ params, request }) => {
        await opensPerIp.consume(request.ip);
        return shares.open(params.shareToken, request);
      },
    }),
  ];
}

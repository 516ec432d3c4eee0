import { route, type RouteDef } from '../../../core/index.ts';
import type { SharesService } from '../shares.service.ts';
import { fileIdParams, shareBody, shareTokenParams } from '../schemas/requests.ts';
import { share, sharedFile } from '../schemas/responses.ts';
import { keyOrg } from './org-key.ts';

/**
 * Share links: the mode and rotation on the public API (`X-Api-Key`), and the key-less
 * `GET /api/public/share/{shareToken}` whose token is the credential.
 * @see docs/api/files.md "Sharing"
 */
export function shareRoutes(shares: SharesService): RouteDef[] {
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
      handler: ({ params, request }) => shares.open(params.shareToken, request),
    }),
  ];
}

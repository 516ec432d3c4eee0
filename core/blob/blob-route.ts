import { create as contentDisposition } from 'content-disposition';
import { notFound } from '../errors.ts';
import { reply } from '../http/reply.ts';
import { route, type RouteDef } from '../http/route.ts';
import type { FileBlobStore } from './file-blob-store.ts';
import { verifyGrant } from './signed-url.ts';

/**
 * `GET /api/blobs/{grant}` — downloads through a URL from the embedded driver's `presignGet`: 404
 * `NOT_FOUND` alike for a wrong signature, an expired URL and a missing object. The answer is
 * `attachment` unless the URL says `inline`, never sniffed, and sandboxed (an inline SVG cannot run
 * script).
 * @see docs/plugins.md "Object storage (core.blob)"
 */
export function blobDownloadRoute(store: FileBlobStore, urlKey: Buffer, now: () => Date): RouteDef {
  return route({
    method: 'GET', path: '/api/blobs/{grant}', auth: 'public', tags: ['kernel'],
    response: { contentType: '*/*', description: 'The object, with the content type it was stored with' },
    summary: 'Download an object through a signed, expiring URL (embedded object storage)',
    handler: async ({ params }) => {
      const grant = verifyGrant(params.grant, urlKey, Math.floor(now().getTime() / 1000));
      const object = grant ? await store.get(grant.key) : undefined;
      if (!grant || !object) throw notFound('No such download, or the link has expired.');
      return reply(200, object.body, {
        'content-type': object.contentType,
        'content-length': String(object.size),
        'content-disposition': contentDisposition(grant.fileName, { type: grant.disposition }),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
      });
    },
  });
}

import { create as contentDisposition } from 'content-disposition';
import { notFound } from '../errors.ts';
import { reply } from '../http/reply.ts';
import { route, type RouteDef } from '../http/route.ts';
import type { FileBlobStore } from './file-blob-store.ts';
import { byteRange } from './byte-range.ts';
import { verifyGrant } from './signed-url.ts';

/**
 * `GET /api/blobs/{grant}` — downloads through a URL from the embedded driver's `presignGet`: 404
 * `NOT_FOUND` alike for a wrong signature, an expired URL and a missing object. The answer is
 * `attachment` unless the URL says `inline`, never sniffed, and sandboxed (an inline SVG cannot run
 * script). One `Range: bytes=…` is served as 206 with `Content-Range` (416 when it starts past the
 * end); several ranges, or a malformed one, get the whole object.
 * @see docs/plugins.md "Object storage (core.blob)"
 */
export function blobDownloadRoute(store: FileBlobStore, urlKey: Buffer, now: () => Date): RouteDef {
  return route({
    method: 'GET', path: '/api/blobs/{grant}', auth: 'public', tags: ['kernel'],
    response: { 200: { contentType: '*/*', description: 'The object, with the content type it was stored with' }, 206: { contentType: '*/*', description: 'The asked byte range of the object' } },
    summary: 'Download an object through a signed, expiring URL (embedded object storage)',
    handler: async ({ params, request }) => {
      const grant = verifyGrant(params.grant, urlKey, Math.floor(now().getTime() / 1000));
      const info = grant ? await store.info(grant.key) : undefined;
      if (!grant || !info) throw notFound('No such download, or the link has expired.');
      const headers = {
        'content-type': info.contentType,
        'content-disposition': contentDisposition(grant.fileName, { type: grant.disposition }),
        'accept-ranges': 'bytes',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
      };
      const range = byteRange(request.headers.range, info.size);
      if (range === 'unsatisfiable') return reply(416, undefined, { ...headers, 'content-range': `bytes */${info.size}` });
      const object = await store.getRange(grant.key, range);
      if (!object) throw notFound('No such download, or the link has expired.');
      if (!range) return reply(200, object.body, { ...headers, 'content-length': String(info.size) });
      return reply(206, object.body, {
        ...headers, 'content-length': String(range.end - range.start + 1), 'content-range': `bytes ${range.start}-${range.end}/${info.size}`,
      });
    },
  });
}

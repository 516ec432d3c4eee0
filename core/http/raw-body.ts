/**
 * The request body as bytes, for routes that declare `rawBody` (uploads): read up to a limit and
 * cut off past it.
 * @see docs/plugins.md "Routes are data"
 */
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { badRequest, contentEncodingRefused, payloadTooLarge, unsupportedMediaType } from '../errors.ts';

/**
 * Reads the body of `ctx` (empty when there is none).
 * @throws AerieError 413 `PAYLOAD_TOO_LARGE` (`limitBytes`) past `maxBytes`, before more is read
 *   (the connection is closed after the answer); 415 `UNSUPPORTED_MEDIA_TYPE` for a JSON body (the
 *   JSON parser already took it) or a `Content-Encoding` other than `identity`; 400 `BAD_REQUEST`
 *   when the body cannot be read.
 */
export async function readRawBody(ctx: Context, maxBytes: number): Promise<Buffer> {
  if (ctx.request.body !== undefined) throw unsupportedMediaType('Send the bytes with a Content-Type other than JSON.');
  const encoding = ctx.get('content-encoding').toLowerCase();
  if (encoding && encoding !== 'identity') throw contentEncodingRefused();
  try {
    return await getRawBody(ctx.req, { limit: maxBytes, length: ctx.request.length });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') {
      ctx.set('Connection', 'close');
      throw payloadTooLarge(maxBytes);
    }
    throw badRequest('The request body could not be read.');
  }
}

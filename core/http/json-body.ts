/**
 * The JSON request-body parser: `raw-body` reads at most the limit, then the bytes are decoded as
 * UTF-8 with `TextDecoder`'s `fatal` mode, so a body that is not UTF-8 is refused instead of being
 * read with U+FFFD in place of its bad bytes (which a replacing decoder would hand on silently).
 * @see docs/api/errors.md "Order of checks" (body parsing)
 */
import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { aerieError, contentEncodingRefused, payloadTooLarge } from '../errors.ts';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (undefined when the request had no JSON body). */
    body?: unknown;
  }
}

// RFC 8259 JSON text starts with an object or array for Aerie's routes (strict, as co-body's default).
const OBJECT_OR_ARRAY = /^[\x20\x09\x0a\x0d]*[[{]/;
const JSON_TYPES = ['application/json', '+json'];

/**
 * Parses `application/json` (and `…+json`) bodies into `ctx.request.body`, keeping the bytes as
 * received in `ctx.state.jsonBytes` (routes with `keepRawBody`); other bodies are left unread
 * (routes then answer 415). An empty body is `{}`.
 * @param limitBytes - largest body accepted.
 * @throws AerieError 413 `PAYLOAD_TOO_LARGE` (`limitBytes`); 400 `INVALID_JSON` for bytes that are
 *   not UTF-8 or text that is not a JSON object or array; 415 `UNSUPPORTED_MEDIA_TYPE` for a
 *   `Content-Encoding` other than `identity`.
 */
export function jsonBody(limitBytes: number): Middleware {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  return async (ctx, next) => {
    if (!ctx.is(JSON_TYPES)) return next();
    const encoding = ctx.get('content-encoding').toLowerCase();
    if (encoding && encoding !== 'identity') throw contentEncodingRefused();
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: limitBytes, length: ctx.request.length });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') {
        throw payloadTooLarge(limitBytes, 'Request bodies are');
      }
      throw aerieError('INVALID_JSON', 'The request body could not be read.');
    }
    ctx.state.jsonBytes = raw;
    let text: string;
    try {
      text = decoder.decode(raw);
    } catch {
      throw aerieError('INVALID_JSON', 'The request body is not valid UTF-8.');
    }
    if (text.trim() === '') {
      ctx.request.body = {};
    } else {
      if (!OBJECT_OR_ARRAY.test(text)) throw aerieError('INVALID_JSON', 'The request body is not valid JSON.');
      try {
        ctx.request.body = JSON.parse(text);
      } catch {
        throw aerieError('INVALID_JSON', 'The request body is not valid JSON.');
      }
    }
    return next();
  };
}

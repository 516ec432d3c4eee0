import { EgressError, type Egress, type EgressFetch, type EgressResponse, type FetchOptions } from './egress.types.ts';

/** Statuses whose `Response` may carry no body (the WHATWG constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * Wraps `egress.get`/`egress.post` as a WHATWG `fetch` (openid-client's `customFetch`): the URL,
 * method and headers are passed through; a `URLSearchParams`, string or bytes body is sent as is.
 * Only GET and POST are sent (`invalid_url` otherwise). The answer is a `Response` with the
 * status, the headers and the body read up to `maxResponseBytes` (a 1xx answer, which a `Response`
 * cannot carry, is refused as `connection`). @throws EgressError as the client does.
 * @see docs/plugins.md "Outbound requests (core.egress)"
 */
export function toFetch(egress: Pick<Egress, 'get' | 'post'>, options: FetchOptions): EgressFetch {
  return async (url, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = plainHeaders(init.headers);
    let res: EgressResponse;
    if (method === 'GET') res = await egress.get(url, { headers, ...options });
    else if (method === 'POST') res = await egress.post(url, { headers, body: bodyOf(init.body), ...options });
    else throw new EgressError('invalid_url', `${method} is not sent`);
    if (res.status < 200 || res.status > 599) throw new EgressError('connection', `unexpected status ${res.status}`);
    const out = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
    }
    return new Response(NULL_BODY.has(res.status) ? null : new Uint8Array(res.body), { status: res.status, headers: out });
  };
}

function plainHeaders(headers: unknown): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers as Array<[string, string]>);
  return Object.fromEntries(Object.entries(headers as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}

function bodyOf(body: unknown): string | Uint8Array {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new EgressError('invalid_url', 'the request body must be a string, bytes or URLSearchParams');
}

import { aerieError, reply, type AerieError, type Reply } from '../../core/index.ts';
import { ERROR_URN } from './user-schema.ts';

/** SCIM's media type (RFC 7644 §3.1); every SCIM answer carries it. Frozen: answers copy it, never change it. */
export const SCIM_JSON: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/scim+json' });

/**
 * A SCIM answer: the body with `application/scim+json` and this answer's own `headers` (a 201's
 * `location`). Each reply has its own header object.
 */
export const scimReply = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Reply =>
  reply(status, body, { ...headers, ...SCIM_JSON });

/** The RFC 7644 §3.12 error body: `{ schemas: [Error], status: "404", scimType?, detail }` (`status` a string, as the RFC writes it). */
export function scimErrorBody(status: number, detail: string, scimType?: string) {
  return { schemas: [ERROR_URN], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

/** A SCIM error answer (RFC 7644 §3.12); `headers` such as `retry-after` go with it. */
export function scimError(status: number, detail: string, scimType?: string, headers: Readonly<Record<string, string>> = {}): Reply {
  return scimReply(status, scimErrorBody(status, detail, scimType), headers);
}

/**
 * 401 for a SCIM request without a valid token of the organization in its path, thrown by the auth
 * scheme (the kernel answers it before any route runs). The kernel renders an error as `{ error,
 * message, ...fields }`; the fields here blank `error` and `message` (JSON leaves out undefined
 * members) and carry the SCIM error body, so the client reads `{ schemas, status: "401", detail }`
 * as `application/scim+json`, with `WWW-Authenticate: Bearer` (RFC 6750 §3).
 * @see docs/api/scim.md "Authentication"
 */
export function scimUnauthorized(detail: string): AerieError {
  const err = aerieError('UNAUTHORIZED', detail, { error: undefined, message: undefined, ...scimErrorBody(401, detail) });
  Object.assign(err.headers, SCIM_JSON, { 'www-authenticate': 'Bearer realm="SCIM"' });
  return err;
}

import { reply, type Reply } from '../../core/index.ts';
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

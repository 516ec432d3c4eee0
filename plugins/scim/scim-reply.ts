import { reply, type Reply } from '../../core/index.ts';
import { ERROR_URN } from './user-schema.ts';

/** SCIM's media type (RFC 7644 §3.1); every SCIM answer carries it. */
export const SCIM_JSON = { 'content-type': 'application/scim+json' };

/** A SCIM answer: the body with `application/scim+json`. */
export const scimReply = (status: number, body: unknown): Reply => reply(status, body, SCIM_JSON);

/**
 * A SCIM error body (RFC 7644 §3.12): `{ schemas: [Error], status: "400", scimType?, detail }` —
 * `status` is a string, as the RFC writes it.
 */
export function scimError(status: number, detail: string, scimType?: string): Reply {
  return scimReply(status, { schemas: [ERROR_URN], status: String(status), ...(scimType ? { scimType } : {}), detail });
}

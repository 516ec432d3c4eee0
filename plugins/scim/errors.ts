import { notFound, unauthorized, type AerieError } from '../../core/index.ts';
import { SCIM_JSON, scimErrorBody } from './scim-reply.ts';

/** Errors of the scim plugin's Aerie routes (token administration); SCIM routes answer SCIM error bodies. */
export const scimErrors = {
  tokenNotFound: () => notFound('SCIM token not found.'),
  /**
   * 401 for a SCIM request without a valid token of the organization in its path, thrown by the auth
   * scheme (the kernel answers it before any route runs): the SCIM error body
   * `{ schemas, status: "401", detail }` as `application/scim+json`, with `WWW-Authenticate: Bearer`
   * (RFC 6750 §3). @see docs/api/scim.md "Authentication"
   */
  unauthorized: (detail: string): AerieError => {
    const err = unauthorized(detail);
    err.protocolBody = scimErrorBody(401, detail);
    Object.assign(err.headers, SCIM_JSON, { 'www-authenticate': 'Bearer realm="SCIM"' });
    return err;
  },
};

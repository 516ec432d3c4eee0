import { AerieError, type Reply, type RouteDef } from '../../core/index.ts';
import { ScimFilterError } from './filter/ast.ts';
import { scimError } from './scim-reply.ts';
import { ScimConflict } from './users-writer.service.ts';

/** What the guard logs with: a pino logger, or anything with its `error(obj, msg)`. */
export interface ErrorLog {
  error(obj: object, msg: string): void;
}

/**
 * Answers what a SCIM handler throws as a SCIM error body (RFC 7644 §3.12), never in Aerie's
 * envelope: a {@link ScimConflict} with its status and `scimType`; a {@link ScimFilterError} as
 * 400 `invalidFilter`; an {@link AerieError} a service refused with (409, 429 with its
 * `Retry-After`, …) with its status and message as `detail`; anything else is logged with the
 * request id and answered 500 `{ detail: "… (request <id>)" }`, no internals.
 * @param routes - the SCIM routes (`/scim/v2/…`); each keeps its definition, its handler wrapped
 * @see docs/api/scim.md "Answers and errors"
 */
export function withScimErrors(routes: RouteDef[], log: ErrorLog): RouteDef[] {
  return routes.map((def) => ({
    ...def,
    handler: async (input) => {
      try {
        return await def.handler(input);
      } catch (err) {
        return scimFailure(err, log, input.request.id);
      }
    },
  }));
}

/** The SCIM answer for a thrown error (see {@link withScimErrors}). */
export function scimFailure(err: unknown, log: ErrorLog, requestId: string): Reply {
  if (err instanceof ScimConflict) return scimError(err.status, err.detail, err.scimType);
  if (err instanceof ScimFilterError) return scimError(400, err.detail, err.scimType);
  if (err instanceof AerieError && err.expose) return scimError(err.status, err.message, undefined, err.headers);
  log.error({ err, reqId: requestId }, 'unhandled error');
  return scimError(500, `Something went wrong on our side (request ${requestId}).`);
}

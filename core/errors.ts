/**
 * The one error class services throw and the kernel renders.
 *
 * Rendered as the envelope `{ error: code, message, ...fields }` with HTTP `status`. Only errors with
 * `expose: true` (all 4xx by default) show their message; others render as 500 `INTERNAL_ERROR`
 * with the request id and no internals.
 * @see spec 01 "Errors"
 */
export class AerieError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: Record<string, unknown>;
  readonly expose: boolean;
  /** Response headers to send with the error (e.g. `Retry-After`). */
  readonly headers: Record<string, string> = {};

  /**
   * @param status HTTP status (400–599).
   * @param code the spec's error code, e.g. `PERMISSION_DENIED`.
   * @param message human-readable sentence shown to clients when exposed.
   * @param fields extra envelope fields named by the spec (`required`, `feature`, …).
   */
  constructor(status: number, code: string, message: string, fields: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AerieError';
    this.status = status;
    this.code = code;
    this.fields = fields;
    // 501 (method not implemented) and 503 (not ready, feature disabled) are deliberate answers clients must see.
    this.expose = status < 500 || status === 501 || status === 503;
  }
}

/** 400 with the given code (default `VALIDATION_FAILED`). */
export const badRequest = (message: string, code = 'VALIDATION_FAILED', fields: Record<string, unknown> = {}) =>
  new AerieError(400, code, message, fields);

/** 401 `UNAUTHORIZED` (or the given code, e.g. `STEPUP_REQUIRED`). */
export const unauthorized = (message = 'Authentication required.', code = 'UNAUTHORIZED', fields: Record<string, unknown> = {}) =>
  new AerieError(401, code, message, fields);

/** 403 `PERMISSION_DENIED` with `errorCode` and the `required` scope (spec 01 "Errors"). */
export const permissionDenied = (required?: string, message = 'You do not hold the permission this action needs.') =>
  new AerieError(403, 'PERMISSION_DENIED', message, {
    errorCode: 'PERMISSION_DENIED',
    ...(required ? { required } : {}),
  });

/** 404 `NOT_FOUND`; also used for other organizations' ids so existence does not leak. */
export const notFound = (message = 'Not found.', code = 'NOT_FOUND') => new AerieError(404, code, message);

/** 409 with the given code. */
export const conflict = (message: string, code = 'CONFLICT', fields: Record<string, unknown> = {}) =>
  new AerieError(409, code, message, fields);

import { statusOf, type ErrorCode } from './error-codes.ts';

/**
 * The one error class services throw and the kernel renders.
 *
 * Rendered as the envelope `{ error: code, message, ...fields }` with HTTP `status`. Only errors with
 * `expose: true` (all 4xx by default) show their message; others render as 500 `INTERNAL_ERROR`
 * with the request id and no internals. `code` is one of the registered {@link ErrorCode}s.
 * @see docs/api/errors.md
 */
export class AerieError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly fields: Record<string, unknown>;
  readonly expose: boolean;
  /** Response headers to send with the error (e.g. `Retry-After`). */
  readonly headers: Record<string, string> = {};
  /**
   * The answer's body instead of Aerie's envelope, for a route family whose protocol fixes its own
   * error format (SCIM's RFC 7644 §3.12 body); set it with the protocol's `Content-Type` in
   * {@link headers}. The status and `code` stay the error's.
   */
  protocolBody?: unknown;

  /**
   * @param status HTTP status (400–599), the one the registry gives `code` (see {@link aerieError}).
   * @param code a registered error code, e.g. `PERMISSION_DENIED`.
   * @param message human-readable sentence shown to clients when exposed.
   * @param fields extra envelope fields (`required`, `feature`, …).
   */
  constructor(status: number, code: ErrorCode, message: string, fields: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AerieError';
    this.status = status;
    this.code = code;
    this.fields = fields;
    // 501 (method not implemented) and 503 (not ready, feature disabled) are deliberate answers clients must see.
    this.expose = status < 500 || status === 501 || status === 503;
  }
}

/**
 * An {@link AerieError} with the status the registry gives `code`, so a code's status is written once.
 * @param code - a registered code; @param message - shown to clients; @param fields - extra envelope fields.
 * @throws Error when `code` is not registered by a loaded module.
 * @example throw aerieError('SLUG_TAKEN', `The slug "${slug}" is already in use.`, { slug });
 */
export const aerieError = (code: ErrorCode, message: string, fields: Record<string, unknown> = {}) =>
  new AerieError(statusOf(code), code, message, fields);

/** 400 `VALIDATION_FAILED` naming the offending member in `field` (dotted path, `body`, `query` or `params`). */
export const validationFailed = (message: string, field: string, fields: Record<string, unknown> = {}) =>
  aerieError('VALIDATION_FAILED', message, { field, ...fields });

/** 401 `UNAUTHORIZED`: no credential, or one that is not valid. */
export const unauthorized = (message = 'Authentication required.') => aerieError('UNAUTHORIZED', message);

/**
 * 401 `STEPUP_REQUIRED`: the action needs a passkey seal.
 * @param purpose - the seal purpose the client should ask options for (sent as `purpose`), when known.
 */
export const stepUpRequired = (purpose?: string, message = 'This action needs a passkey seal.') =>
  aerieError('STEPUP_REQUIRED', message, purpose ? { purpose } : {});

/**
 * 403 `PERMISSION_DENIED` with `errorCode: "PERMISSION_DENIED"` and the `required` scope.
 * @param required - the scope (or role word such as `owner`) that would help; omit when none would.
 * @param fields - further envelope fields (e.g. `refused`).
 */
export const permissionDenied = (required?: string, message = 'You do not hold the permission this action needs.', fields: Record<string, unknown> = {}) =>
  aerieError('PERMISSION_DENIED', message, { errorCode: 'PERMISSION_DENIED', ...(required ? { required } : {}), ...fields });

/** 403 `UPGRADE_REQUIRED` with `feature` (e.g. `feature.audit.view_all`): the plan does not include it. */
export const upgradeRequired = (feature: string, message = 'Your plan does not include this feature.') =>
  aerieError('UPGRADE_REQUIRED', message, { feature });

/** 404 `NOT_FOUND`; also used for other organizations' ids so existence does not leak. */
export const notFound = (message = 'Not found.') => aerieError('NOT_FOUND', message);

/** 400 `BAD_REQUEST`: the request could not be read (interrupted, malformed framing). */
export const badRequest = (message: string) => aerieError('BAD_REQUEST', message);

/** 413 `PAYLOAD_TOO_LARGE` with `limitBytes`; `what` names the limited thing ("Request bodies are", "The file is"). */
export const payloadTooLarge = (limitBytes: number, what = 'The body is') => aerieError('PAYLOAD_TOO_LARGE', `${what} limited to ${limitBytes} bytes.`, { limitBytes });

/** 415 `UNSUPPORTED_MEDIA_TYPE`: the body's `Content-Type` or `Content-Encoding` is not the route's; the message says what to send. */
export const unsupportedMediaType = (message: string) => aerieError('UNSUPPORTED_MEDIA_TYPE', message);

/** 415 for a body sent with a `Content-Encoding` (Aerie reads bodies as sent). */
export const contentEncodingRefused = () => unsupportedMediaType('Send the body without Content-Encoding.');


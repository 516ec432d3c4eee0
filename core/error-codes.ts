/**
 * The error-code registry: the closed set of `error` values Aerie answers with, each with its HTTP
 * status and a one-sentence description. The kernel declares its cross-cutting codes here; each
 * plugin declares its own in its `errors.ts` with {@link defineErrorCodes} and adds them to the
 * {@link ErrorCodeRegistry} type by declaration merging, so `AerieError` accepts no other code.
 */

/** What the registry holds for one code. */
export interface ErrorCodeInfo {
  /** HTTP status the code is answered with (400–599). */
  readonly status: number;
  /** When the code is answered, in one sentence. */
  readonly description: string;
}

/** A plugin's (or the kernel's) table of codes, as written in its `errors.ts`. */
export type ErrorCodeTable = Readonly<Record<string, ErrorCodeInfo>>;

/** Reasons a seal binding is refused besides `seal_binding_mismatch` (all 400). @see core/seals/binding.ts */
const SEAL_BINDING_REFUSALS = {
  invalid_version: 'the seal binding has another version than 1',
  invalid_nonce: 'the seal binding nonce is not 64 lowercase hex characters',
  invalid_purpose: 'the seal purpose is not a dotted lowercase name',
  invalid_subject: 'the seal subject is empty or not well-formed',
  invalid_field_key: 'a bound field key is not a dotted lowercase name',
  reserved_field_key: 'a bound field uses a reserved key (nonce, purpose, subject)',
  invalid_value: 'a bound value is not a well-formed Unicode string',
  value_too_long: 'a bound value is longer than the limit in UTF-8 bytes',
  invalid_canonical_line: 'a canonical line of the binding does not parse',
  unknown_purpose: 'no enabled plugin registered the seal purpose',
  duplicate_purpose: 'a seal purpose was registered twice',
  duplicate_input: 'a person-typed input was sent twice',
  unexpected_field: 'an input was sent that the purpose does not bind',
} as const;

/** The kernel's codes: they can appear on any route or come from a kernel mechanism. */
export const kernelErrorCodes = {
  VALIDATION_FAILED: { status: 400, description: "a path parameter, query or body breaks the route's JSON Schema or a request rule" },
  INVALID_JSON: { status: 400, description: 'the body is sent as JSON but does not parse' },
  BAD_REQUEST: { status: 400, description: 'any other malformed request the HTTP layer refuses' },
  MULTIPART_INVALID: { status: 400, description: "an upload's body is not multipart/form-data, is malformed, or has no part named `field`" },
  INVALID_SCOPE: { status: 400, description: 'a scope expression does not parse' },
  UNAUTHORIZED: { status: 401, description: 'no credential, or one that is malformed, unknown, expired or revoked' },
  STEPUP_REQUIRED: { status: 401, description: 'the action needs a passkey seal and none was sent' },
  STEPUP_FAILED: { status: 401, description: 'the passkey seal did not verify (`reason` says why)' },
  ADDON_REQUIRED: { status: 402, description: 'the add-on named by `addon` is not enabled' },
  PERMISSION_DENIED: { status: 403, description: 'the caller lacks the permission; `errorCode` and, when a scope would help, `required`' },
  UPGRADE_REQUIRED: { status: 403, description: "the organization's plan does not include `feature`" },
  seal_binding_mismatch: { status: 403, description: 'the sealed content changed since signing (`mismatchedKeys`)' },
  NOT_FOUND: { status: 404, description: "no route, an unknown resource, or another organization's resource" },
  METHOD_NOT_ALLOWED: { status: 405, description: 'the path exists with other methods (`Allow`)' },
  REQUEST_TIMEOUT: { status: 408, description: 'the request\'s headers did not arrive within `http.headersTimeoutSeconds`, or the whole request within `http.requestTimeoutSeconds`' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, description: 'an `Idempotency-Key` already used, within 24 hours, for a request with other content' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'the body is larger than `limitBytes` (1 MiB for JSON; an upload route sets its own)' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'a body that is not application/json, or with a Content-Encoding' },
  HEADERS_TOO_LARGE: { status: 431, description: 'the request line and headers exceed 16 KiB' },
  RATE_LIMITED: { status: 429, description: 'too many requests of this kind; retry after `retryAfterSeconds`' },
  INTERNAL_ERROR: { status: 500, description: 'an unexpected failure; `requestId` names it in the logs' },
  NOT_IMPLEMENTED: { status: 501, description: 'a method no route serves (TRACE, CONNECT, …)' },
  NOT_READY: { status: 503, description: 'the database is not reachable' },
  TOO_MANY_CONNECTIONS: { status: 503, description: 'the client address already holds `http.maxConnectionsPerAddress` open connections (`Retry-After`)' },
  ...Object.fromEntries(Object.entries(SEAL_BINDING_REFUSALS).map(([code, description]) => [code, { status: 400, description }])) as
    { [K in keyof typeof SEAL_BINDING_REFUSALS]: { status: 400; description: string } },
} as const satisfies ErrorCodeTable;

type KernelErrorCodes = typeof kernelErrorCodes;

/**
 * Every error code, as the keys of an interface that plugins extend by declaration merging:
 * ```ts
 * export const helloErrorCodes = defineErrorCodes('hello-partner', {
 *   GREETING_TOO_RUDE: { status: 422, description: 'the greeting breaks the house rules' },
 * });
 * type HelloErrorCodes = typeof helloErrorCodes;
 * declare module '../../core/index.ts' { interface ErrorCodeRegistry extends HelloErrorCodes {} }
 * ```
 * Two declarations of one code with different entries fail to compile ("cannot simultaneously
 * extend"), and {@link defineErrorCodes} refuses a second owner at load time.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface ErrorCodeRegistry extends KernelErrorCodes {}

/** One of the registered error codes (`PERMISSION_DENIED`, `SLUG_TAKEN`, …). */
export type ErrorCode = keyof ErrorCodeRegistry & string;

const registry = new Map<string, ErrorCodeInfo & { owner: string }>();

/**
 * Registers a plugin's codes at load time and returns them frozen, typed as written.
 * @param owner - the plugin id (`kernel` for the kernel's own).
 * @param codes - code → `{status, description}`.
 * @throws Error when another owner already registered one of the codes, or with another entry.
 * @example
 * export const orgsErrorCodes = defineErrorCodes('orgs', { SLUG_TAKEN: { status: 409, description: '…' } });
 */
export function defineErrorCodes<const T extends ErrorCodeTable>(owner: string, codes: T): T {
  for (const [code, info] of Object.entries(codes)) {
    const known = registry.get(code);
    if (known && (known.owner !== owner || known.status !== info.status)) {
      throw new Error(`error code ${code} of ${owner} is already registered by ${known.owner}`);
    }
    registry.set(code, Object.freeze({ owner, status: info.status, description: info.description }));
  }
  return Object.freeze(codes);
}

defineErrorCodes('kernel', kernelErrorCodes);

/**
 * The registered codes: the kernel's and those of every plugin module loaded so far.
 * @returns code → `{owner, status, description}` (a fresh map; entries are frozen).
 */
export function registeredErrorCodes(): ReadonlyMap<string, Readonly<ErrorCodeInfo & { owner: string }>> {
  return new Map(registry);
}

/**
 * The HTTP status registered for `code`.
 * @throws Error for a code no loaded module registered (a programming error, caught by the tests).
 */
export function statusOf(code: ErrorCode): number {
  const info = registry.get(code);
  if (!info) throw new Error(`error code ${code} is not registered`);
  return info.status;
}

/**
 * Routes are data: the kernel turns these definitions into koa routes, validators and OpenAPI.
 * Handlers take `{ body, params, query, principal, org, request }` and return a value (200/`status`),
 * a `Reply`, or nothing (204). They never touch koa's `ctx`.
 */

import type { Readable } from 'node:stream';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { RouteSeal, SealVerification } from '../seals/seal-service.types.ts';
import type { AuthScheme } from './auth-scheme.ts';

/** Who is calling, as resolved by an auth scheme. */
export interface Principal {
  /** `account` (session), `apiKey`, `machine`, `agent`, or a partner scheme's type. */
  type: string;
  /** The principal's own id (account id, key id, …). */
  id: string;
  /** The signed-in account behind the principal, when there is one. */
  accountId?: string;
  email?: string;
  /** Listed in `AERIE_PLATFORM_ADMINS`. */
  platformAdmin?: boolean;
  /** Set for credentials bound to one organization (API keys, machine tokens). */
  orgId?: string;
  /** Set for credentials bound to one app group of that organization (app-group-scoped keys and their tokens). */
  appGroupId?: string;
  /** Explicit scopes the credential holds (keys, tokens); members' grants come from the authorizer. */
  scopes?: string[];
  /** Session id for session principals. */
  sessionId?: string;
  /**
   * Set on an organization session (one an organization's identity provider opened): the session
   * reaches that organization's `org: true` routes and the routes that declare `orgSessions`,
   * nothing else (403 `PERMISSION_DENIED`, or 404 for another organization's routes).
   * @see docs/api/federation.md "Organization sessions"
   */
  sessionOrgId?: string;
}

/**
 * The organization a `/api/org/{slug}/…` request is about, with the caller's membership, as the
 * `orgResolver` extension point answers it. Roles and plans are the orgs plugin's vocabulary
 * (its `api.ts` narrows them); the kernel only carries them.
 */
export interface OrgContext {
  organization: { id: string; slug: string; name: string; type: string };
  /** The caller's active membership (absent for org-bound credentials such as machine tokens). */
  membership?: { id: string; role: string };
}

/** What a handler knows of the HTTP request. */
export interface RequestInfo {
  id: string;
  method: string;
  path: string;
  ip: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * What a handler receives. `route()` narrows it from the definition: `body`, `query` and `params`
 * are the types of their JSON Schemas, `principal` is non-null on routes that are not public and
 * `org` is non-null on routes with `org: true`.
 */
export interface HandlerInput<B = any, Q = any, P = any, Pr extends Principal | null = Principal | null, O extends OrgContext | null = OrgContext | null> {
  body: B;
  query: Q;
  params: P;
  principal: Pr;
  org: O;
  request: RequestInfo;
  /** The verified passkey seal, on routes that declare `seal` (when it applied). */
  seal?: SealVerification;
  /** The request body's bytes, on routes that declare `rawBody` (or `keepRawBody` beside a JSON `body`). */
  rawBody?: Buffer;
  /** The body's form fields, on routes that declare `rawBody` with `form: true`. */
  form?: URLSearchParams;
  /** The uploaded file as a stream, on routes that declare `upload`. */
  upload?: UploadedFile;
}

/**
 * `rawBody` of a route: the handler gets the request body as bytes (any `Content-Type` but JSON),
 * read up to `maxBytes` — a longer body is cut off and answered 413 `PAYLOAD_TOO_LARGE`. With
 * `form: true` it also gets `form`, the fields of an `application/x-www-form-urlencoded` body
 * (UTF-8; empty when the body is sent with another `Content-Type`), as HTML forms and OAuth post them.
 */
export interface RawBodySpec {
  readonly maxBytes: number;
  readonly form?: boolean;
}

/**
 * `upload` of a route: the body is `multipart/form-data` and the handler gets the part named `field`
 * as a stream, never buffered; the stream fails with 413 `PAYLOAD_TOO_LARGE` once more than
 * `maxBytes` have passed. Not multipart, malformed, or without that part: 400 `MULTIPART_INVALID`.
 * `errors` replaces any of these with the route's own (a contract that names its own codes).
 */
export interface UploadSpec {
  readonly field: string;
  readonly maxBytes: number;
  readonly errors?: UploadErrors;
}

/**
 * The errors an `upload` route answers instead of the kernel's, each optional:
 * `notMultipart` (no `multipart/form-data` body, or no usable boundary), `malformed` (the form does
 * not parse), `missingPart` (the form ends without the part `field`), `tooLarge` (the part passed
 * `maxBytes`; the handler's stream fails with it). Build them with `aerieError` from registered codes.
 * @example errors: { notMultipart: () => aerieError('multipart_form_required', '…'), tooLarge: (limitBytes) => aerieError('file_too_large', '…', { limitBytes }) }
 */
export interface UploadErrors {
  readonly notMultipart?: () => Error;
  readonly malformed?: () => Error;
  /** A part's headers that cannot be read (a control character in the file name, most often). */
  readonly partHeader?: () => Error;
  readonly missingPart?: () => Error;
  readonly tooLarge?: (maxBytes: number) => Error;
}

/** The file part of an `upload` route: its name and type as the client sent them, and its bytes. */
export interface UploadedFile {
  fileName: string;
  contentType: string;
  stream: Readable;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A route JSON Schema written as a TypeScript module: an `as const` object with its `$id`, so the
 * kernel registers and validates it like a JSON file and `route()` derives the handler's types from it.
 * @example export const greetingBody = { $id: 'hello-partner/greeting.body', type: 'object', … } as const satisfies RouteSchema;
 */
export type RouteSchema = Exclude<JSONSchema, boolean> & { readonly $id: string };

/** A schema given by `$id` (a JSON file in `schemas/`, typed `unknown`) or as a {@link RouteSchema}. */
export type SchemaRef = string | RouteSchema;

/** A success answer that is not a JSON value: its media type, and a schema when it is JSON under another type. */
export interface ResponseContent {
  readonly contentType: string;
  readonly schema?: SchemaRef;
  readonly description?: string;
}

/**
 * `response` of a route: the schema of its success body (for the route's `status`, default 200), or
 * a map from each success status to its schema, a {@link ResponseContent}, or `null` for no body
 * (204, 304). Tests validate every 2xx JSON answer against it; OpenAPI publishes it.
 * @example response: { 201: invitationCreated, 200: invitationResent }
 */
export type ResponseSpec = SchemaRef | ResponseContent | { readonly [status: number]: SchemaRef | ResponseContent | null };

const sharedSchemas = new Map<string, RouteSchema>();

/**
 * A JSON Schema `$ref` to a shared component schema (one `Organization`, one `Account`, …), so
 * response schemas reuse it instead of copying it. The kernel registers the target with the route.
 * @example properties: { organization: schemaRef(organization) }
 */
export function schemaRef<const S extends RouteSchema>(schema: S): { readonly $ref: S['$id'] } {
  const known = sharedSchemas.get(schema.$id);
  if (known && known !== schema) throw new Error(`two shared schemas with $id ${schema.$id}`);
  sharedSchemas.set(schema.$id, schema);
  return { $ref: schema.$id };
}

/** The shared schema a {@link schemaRef} named, if any. */
export function sharedSchema(id: string): RouteSchema | undefined {
  return sharedSchemas.get(id);
}

/** `auth` of a route: `public`, one auth scheme name, or several accepted schemes. */
export type AuthSpec = 'public' | (string & {}) | readonly string[];

/** The `$id` of a schema reference. */
export function schemaId(ref: SchemaRef): string {
  return typeof ref === 'string' ? ref : ref.$id;
}

/** The value type a schema reference validates: `FromSchema` of a {@link RouteSchema}, else `unknown`. */
export type SchemaType<S> = S extends RouteSchema ? FromSchema<S> : unknown;

/** A principal that is a person's Aerie account (a session): `accountId` is always set. */
export interface AccountPrincipal extends Principal {
  accountId: string;
}

/**
 * The organization context of a person: the organization resolver gives an account's context only
 * with its active membership (404 otherwise), so `member` is set.
 */
export interface MemberOrgContext extends OrgContext {
  membership: NonNullable<OrgContext['membership']>;
}

/** The auth schemes whose principal is always a person's Aerie account: the accounts plugin's bearer and cookie sessions. */
export type AccountSchemes = 'session' | 'cookieSession';

type OnlyAccountSchemes<A> = A extends AccountSchemes ? true : A extends readonly (infer E)[] ? ([E] extends [AccountSchemes] ? true : false) : false;

/**
 * `null` on public routes; an {@link AccountPrincipal} when every accepted scheme is a session (on an
 * `org: true` route only with `personOnly`, since organization credentials ride on the others);
 * else a {@link Principal}.
 */
export type PrincipalOf<A, O = false, PO = undefined> = A extends 'public' ? null : string extends A ? Principal | null
  : OnlyAccountSchemes<A> extends true ? (O extends true ? (PO extends string ? AccountPrincipal : Principal) : AccountPrincipal) : Principal;

/** `{ slug: string; roleId: string }` for `/api/org/{slug}/roles/{roleId}`: the params of a route without a params schema. */
export type PathParams<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? { [K in Name | keyof PathParams<Rest>]: string } : {};

/**
 * The handler input a definition implies (`rawBody: Buffer`, `upload: UploadedFile` when the route
 * declares them).
 */
export type InputOf<A, O, B, Q, P, Path extends string, R = undefined, U = undefined, K = undefined, PO = undefined> = HandlerInput<
  SchemaType<B>, SchemaType<Q>, P extends SchemaRef ? SchemaType<P> : PathParams<Path>, PrincipalOf<A, O, PO>,
  O extends true ? (PrincipalOf<A, O, PO> extends AccountPrincipal ? MemberOrgContext : OrgContext) : null>
  & (R extends RawBodySpec ? { rawBody: Buffer } : unknown) & (R extends { form: true } ? { form: URLSearchParams } : unknown)
  & (U extends UploadSpec ? { upload: UploadedFile } : unknown) & (K extends true ? { rawBody: Buffer } : unknown);

/** A route definition as the kernel stores it (types erased). */
export interface RouteDef {
  method: HttpMethod;
  /** Path with `{param}` placeholders, as the spec writes them: `/api/org/{slug}/roles`. */
  path: string;
  auth: AuthSpec;
  org?: boolean;
  platformAdmin?: boolean;
  orgSessions?: boolean;
  scope?: string;
  personOnly?: string;
  appGroupCredentials?: boolean;
  body?: SchemaRef;
  rawBody?: RawBodySpec;
  upload?: UploadSpec;
  keepRawBody?: boolean;
  query?: SchemaRef;
  params?: SchemaRef;
  guard?: (input: HandlerInput) => void | Promise<void>;
  seal?: RouteSeal;
  status?: number;
  response?: ResponseSpec;
  summary?: string;
  tags?: string[];
  handler: (input: HandlerInput) => unknown | Promise<unknown>;
}

/** A route definition as a plugin writes it, with the handler's input narrowed from the rest. */
export interface RouteDefinition<A extends AuthSpec, O extends boolean, B, Q, P, Path extends string = string, R = undefined, U = undefined, K = undefined, PO = undefined> {
  method: HttpMethod;
  /** Path with `{param}` placeholders, as the spec writes them: `/api/org/{slug}/roles`. Write it as one literal. */
  path: Path;
  /** `public`, one auth scheme name, or several accepted schemes (401 `UNAUTHORIZED` when none matches). */
  auth: A;
  /** Resolve `{slug}` to an organization the caller belongs to (404 otherwise); the handler gets `org`. */
  org?: O;
  /** Only platform admins (403 `PERMISSION_DENIED` otherwise). */
  platformAdmin?: boolean;
  /**
   * This route, though not `org: true`, serves organization sessions ({@link Principal.sessionOrgId})
   * too: it shows or changes only what belongs to the session's organization (`/users/me` lists that
   * organization alone; logout ends the session). Without it an organization session gets 403
   * `PERMISSION_DENIED` here. Published as `x-aerie-org-sessions`. @see docs/api/federation.md
   */
  orgSessions?: boolean;
  /** Scope expression the caller must hold in the organization. */
  scope?: string;
  /**
   * Why only a person may call this `org: true` route (a passkey seal, an owner's decision, session
   * management): organization-bound credentials such as machine tokens are then not accepted here.
   * Without it, every such scheme ({@link AuthScheme.orgCredential}) is accepted beside `auth`, and
   * the route's `scope` decides. Published as `x-aerie-person-only`. @see docs/plugins.md
   */
  personOnly?: PO;
  /**
   * This `org: true` route serves app-group-scoped credentials too (it acts within the credential's
   * app group). Without it such credentials get 401 `UNAUTHORIZED`: organization-wide routes need an
   * organization-wide credential. @see docs/api/keys.md
   */
  appGroupCredentials?: boolean;
  /** Schemas of the body, the query string and the path parameters (a {@link RouteSchema} or an `$id`). */
  body?: B;
  /** The body as bytes instead of JSON (no `body` schema then); see {@link RawBodySpec}. */
  rawBody?: R;
  /** A multipart file upload, streamed (no `body` or `rawBody` then); see {@link UploadSpec}. */
  upload?: U;
  /**
   * With a JSON `body`: the handler also gets `rawBody`, the body's bytes exactly as received, so a
   * signature (an inbound webhook's) is verified over them, never over a re-serialisation.
   */
  keepRawBody?: K;
  query?: Q;
  params?: P;
  /**
   * Checks that run after validation and before the seal (e.g. "Owner only", request rules with
   * their own error codes), so a caller who could never succeed is not asked for a passkey first.
   */
  guard?: (input: InputOf<A, O, B, Q, P, Path, R, U, K, PO>) => void | Promise<void>;
  /** Passkey step-up required before the handler runs. @see core/seals/seal-service.types.ts */
  seal?: RouteSeal<InputOf<A, O, B, Q, P, Path, R, U, K, PO>>;
  /** Status for a plain return value. Default 200. */
  status?: number;
  /** Schema of the success body (or one per success status); see {@link ResponseSpec}. */
  response?: ResponseSpec;
  summary?: string;
  tags?: string[];
  handler: (input: InputOf<A, O, B, Q, P, Path, R, U, K, PO>) => unknown | Promise<unknown>;
}

/**
 * Types a route definition: the handler's `body`, `query` and `params` get the types of the route's
 * schemas (`json-schema-to-ts` `FromSchema`), `principal` is a `Principal` unless `auth` is
 * `'public'`, and `org` is an `OrgContext` when `org: true`.
 * @returns the definition, for `ctx.routes(...)`.
 * @example
 * route({ method: 'POST', path: '/api/m2m/token', auth: 'public', body: m2mTokenBody,
 *   handler: ({ body }) => tokens.issue(body) }); // body: { orgSlug: string; apiKey: string; … }
 */
export function route<
  const A extends AuthSpec,
  const B extends SchemaRef | undefined = undefined,
  const Q extends SchemaRef | undefined = undefined,
  const P extends SchemaRef | undefined = undefined,
  const O extends boolean = false,
  const Path extends string = string,
  const R extends RawBodySpec | undefined = undefined,
  const U extends UploadSpec | undefined = undefined,
  const K extends boolean | undefined = undefined,
  const PO extends string | undefined = undefined,
>(def: RouteDefinition<A, O, B, Q, P, Path, R, U, K, PO>): RouteDef {
  return def as unknown as RouteDef;
}

/** One success answer of a route: a JSON schema, another media type, or no body (`null`). */
export type ResponseEntry = SchemaRef | ResponseContent | null;

/**
 * The route's success answers by status: a single `response` belongs to `status` (default 200).
 * @returns an empty map when the route declares no `response`.
 */
export function responsesOf(def: Pick<RouteDef, 'response' | 'status'>): Map<number, ResponseEntry> {
  const spec = def.response;
  if (spec === undefined) return new Map();
  if (typeof spec === 'string' || '$id' in spec || 'contentType' in spec) return new Map([[def.status ?? 200, spec as ResponseEntry]]);
  return new Map(Object.entries(spec).map(([status, entry]) => [Number(status), entry as ResponseEntry]));
}

/** The JSON schema of a response entry, if it has one. */
export function responseSchema(entry: ResponseEntry | undefined): SchemaRef | undefined {
  if (entry === null || entry === undefined) return undefined;
  return typeof entry === 'object' && 'contentType' in entry ? entry.schema : entry;
}

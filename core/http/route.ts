/**
 * Routes are data: the kernel turns these definitions into koa routes, validators and OpenAPI.
 * Handlers take `{ body, params, query, principal, org, request }` and return a value (200/`status`),
 * a `Reply`, or nothing (204). They never touch koa's `ctx`.
 */

import type { RouteSeal, SealVerification } from '../seals/seal-service.types.ts';

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
  /** Explicit scopes the credential holds (keys, tokens); members' grants come from the authorizer. */
  scopes?: string[];
  /** Session id for session principals. */
  sessionId?: string;
}

/**
 * The organization a `/api/org/{slug}/…` request is about, with the caller's membership, as the
 * `orgResolver` extension point answers it. Roles and plans are the orgs plugin's vocabulary
 * (its `api.ts` narrows them); the kernel only carries them.
 */
export interface OrgContext {
  org: { id: string; slug: string; name: string; type: string };
  /** The caller's active membership (absent for org-bound credentials such as machine tokens). */
  member?: { id: string; role: string };
}

/** What a handler knows of the HTTP request. */
export interface RequestInfo {
  id: string;
  method: string;
  path: string;
  ip: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface HandlerInput<B = any, Q = any, P = any> {
  body: B;
  query: Q;
  params: P;
  principal: Principal | null;
  org: OrgContext | null;
  request: RequestInfo;
  /** The verified passkey seal, on routes that declare `seal` (when it applied). */
  seal?: SealVerification;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDef<B = any, Q = any, P = any> {
  method: HttpMethod;
  /** Path with `{param}` placeholders, as the spec writes them: `/api/org/{slug}/roles`. */
  path: string;
  /** `public`, one auth scheme name, or several accepted schemes. */
  auth: 'public' | string | string[];
  /** Resolve `{slug}` to an organization the caller belongs to (404 otherwise). */
  org?: boolean;
  /** Only platform admins (403 `PERMISSION_DENIED` otherwise). */
  platformAdmin?: boolean;
  /** Scope expression the caller must hold in the organization. */
  scope?: string;
  /** JSON Schema `$id`s. */
  body?: string;
  query?: string;
  params?: string;
  /**
   * Checks that run after validation and before the seal (e.g. "Owner only", request rules with
   * their own error codes), so a caller who could never succeed is not asked for a passkey first.
   */
  guard?: (input: HandlerInput<B, Q, P>) => void | Promise<void>;
  /** Passkey step-up required before the handler runs. @see core/seals/seal-service.types.ts */
  seal?: RouteSeal;
  /** Status for a plain return value. Default 200. */
  status?: number;
  summary?: string;
  tags?: string[];
  handler: (input: HandlerInput<B, Q, P>) => unknown | Promise<unknown>;
}

/** Identity helper that types a route definition. */
export function route<B = any, Q = any, P = any>(def: RouteDef<B, Q, P>): RouteDef<B, Q, P> {
  return def;
}

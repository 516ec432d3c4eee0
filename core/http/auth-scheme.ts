import type { Principal } from './route.ts';

/** What an auth scheme sees of a request. */
export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /** Reads a cookie by name. */
  cookie(name: string): string | undefined;
  ip: string;
  method: string;
  path: string;
  /** The query string's parameters (a repeated name gives an array). */
  query: Record<string, string | string[] | undefined>;
}

/**
 * An authentication mechanism registered by a plugin (`session`, `apiKey`, `machineToken`, …).
 * `authenticate` answers the principal, or `null` when the request carries no valid credential of
 * this kind (the kernel then tries the route's other schemes and answers 401 when none match).
 * It may throw an `AerieError` for a credential it recognises and refuses with a specific code.
 */
export interface AuthScheme {
  name: string;
  /**
   * True when the credential is a cookie. Cookie schemes are not consulted for a request that
   * carries an `Authorization` header, so an invalid bearer token is 401 whatever cookies come with it.
   */
  cookie?: boolean;
  /**
   * True for credentials bound to one organization (machine tokens): the scheme is accepted on every
   * `org: true` route that is not `personOnly`, whatever its `auth` lists, so the route's `scope`
   * decides what such a credential may do. @see docs/plugins.md
   */
  orgCredential?: boolean;
  /**
   * A person's scheme accepted on every `org: true` route that accepts the named scheme: the cookie
   * session (`'session'`) serves the organization routes the bearer session serves, so a browser
   * signed in through Aerie's pages or an organization's identity provider reaches them (with the
   * cookie session's CSRF rules on writes).
   */
  orgRoutesWith?: string;
  /**
   * True for a credential of its own kind that its routes take alone (the SCIM token on
   * `/scim/v2/…`): organization credentials ({@link orgCredential}) never join a route that lists
   * it, so neither the router nor the OpenAPI document offers them there.
   */
  dedicated?: boolean;
  /** How OpenAPI describes it (a Security Scheme Object); default: HTTP bearer. */
  openapi?: Record<string, unknown>;
  /**
   * Further Security Scheme Objects, by name, that must accompany this one on requests other than
   * GET (the cookie session's CSRF header): OpenAPI lists them in the same requirement.
   */
  openapiOnWrites?: Record<string, Record<string, unknown>>;
  authenticate(req: AuthRequest): Promise<Principal | null>;
}

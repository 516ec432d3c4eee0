import type { MemberOrgContext, OrgContext, Principal } from './route.ts';

/**
 * Supplies the scopes a principal holds in an organization: `'all'` (Owner/Admin hold everything
 * implicitly) or scope expression strings. Registered by plugins on `coreExtensions.grants`; the
 * last registration wins (orgs gives the defaults, rbac refines them). Returning the same frozen
 * array while the grants are unchanged lets the route check reuse its built permission set.
 */
export type GrantsProvider = (principal: Principal, org: OrgContext) => Promise<'all' | string[]>;

/**
 * Resolves `{slug}` on `/api/org/{slug}/…` routes to an organization the principal may act in, or
 * `null` (the kernel answers 404 so other organizations' existence does not leak). A person's
 * (account principal's) context always carries their active membership (`member`); route typing
 * relies on it ({@link MemberOrgContext}).
 */
export type OrgResolver = (slug: string, principal: Principal | null) => Promise<OrgContext | null>;

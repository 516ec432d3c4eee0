import { reply, route, type AerieConfig, type Clock, type RouteDef } from '../../../core/index.ts';
import type { AccountsService } from '../service-interfaces.ts';
import type { SessionsService } from '../service-interfaces.ts';
import type { MeContributor } from '../api.ts';
import { ME_CACHE_SECONDS, type MeCache } from '../me-cache.ts';
import { clearSessionCookie } from '../cookie-session.auth.ts';
import { accountsErrors } from '../errors.ts';
import { meQuery } from '../schemas/me.query.ts';
import { profileBody } from '../schemas/profile.body.ts';
import { accountResponse, meResponse } from '../schemas/responses.ts';

interface Deps {
  config: AerieConfig;
  clock: Clock;
  accounts: AccountsService;
  sessions: SessionsService;
  cache: MeCache;
  contributors: readonly MeContributor[];
}

/**
 * `GET /api/v1/users/me` → `{ account, organizations, … }` (cached 5 minutes, `_t` bypasses);
 * `PUT /api/v1/users/me/profile {displayName}` → `{ account }`; `POST /api/auth/logout` → 204 (and
 * clears the session cookie). `/me` and logout accept the cookie session of Aerie's own pages too.
 * @see docs/api/accounts.md
 */
export function meRoutes({ config, clock, accounts, sessions, cache, contributors }: Deps): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/users/me', auth: ['session', 'cookieSession'], query: meQuery, orgSessions: true,
      response: meResponse,
      summary: 'The signed-in account, its organizations and credentials', tags: ['accounts'],
      handler: async ({ principal, query }) => {
        const accountId = principal.accountId;
        if (principal.sessionOrgId) return organizationSessionMe(principal.sessionOrgId, accountId);
        const now = clock.now().getTime();
        let body = query._t === undefined ? cache.get(accountId, now) : undefined;
        const hit = body !== undefined;
        if (!body) {
          const account = await accounts.findById(accountId);
          if (!account) throw accountsErrors.accountNotFound();
          body = { account: accounts.toDto(account), organizations: [] };
          for (const contribute of contributors) Object.assign(body, await contribute(accountId));
          cache.set(accountId, body, now);
        }
        return reply(200, body, { 'cache-control': `private, max-age=${ME_CACHE_SECONDS}`, 'x-aerie-cache': hit ? 'hit' : 'miss' });
      },
    }),
    route({
      method: 'PUT', path: '/api/v1/users/me/profile', auth: 'session', body: profileBody,
      response: accountResponse,
      summary: 'Change the display name', tags: ['accounts'],
      handler: async ({ principal, body }) => ({ account: await accounts.updateProfile(principal.accountId, { displayName: body.displayName.trim() }) }),
    }),
    route({
      method: 'POST', path: '/api/auth/logout', auth: ['session', 'cookieSession'], orgSessions: true, summary: 'End this session', tags: ['accounts'],
      response: { 204: null },
      handler: async ({ principal }) => {
        await sessions.revoke(principal.sessionId!);
        return reply(204, undefined, { 'set-cookie': clearSessionCookie(config) });
      },
    }),
  ];

  /**
   * `/me` for an organization session: the account and that one organization (when the membership
   * is active), nothing account-wide (no passkeys, no seal, no other organization). Not cached.
   */
  async function organizationSessionMe(orgId: string, accountId: string) {
    const account = await accounts.findById(accountId);
    if (!account) throw accountsErrors.accountNotFound();
    const contributed: Record<string, unknown> = {};
    for (const contribute of contributors) Object.assign(contributed, await contribute(accountId));
    const organizations = (contributed.organizations as Array<{ id: string }> | undefined ?? []).filter((o) => o.id === orgId);
    return reply(200, { account: accounts.toDto(account), organizations, organizationSession: { orgId } }, { 'cache-control': 'private, no-store' });
  }
}

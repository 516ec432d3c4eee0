import { isUuid, notFound, permissionDenied, route, validationFailed, type RouteDef } from '../../../core/index.ts';
import type { AppGroupsService } from '../../apps/api.ts';
import type { EndUsersService } from '../../endusers/api.ts';
import type { EntitlementsService, OrganizationsService } from '../../orgs/api.ts';
import type { AnalyticsService } from '../analytics.service.ts';
import type { EventCollection } from '../event-collection.ts';
import { FREE_WINDOW_DAYS } from '../analytics.service.ts';
import { analyticsQuery, appGroupParams, eventCollectionBody, forensicQuery, rollupQuery } from '../schemas/queries.ts';
import { analyticsResponse, behaviorRollupResponse, eventCollectionResponse, forensicResponse, signInRollupResponse } from '../schemas/responses.ts';

/** Largest `days` of the analytics routes; the default is {@link DEFAULT_DAYS}. */
export const MAX_DAYS = 90;
export const DEFAULT_DAYS = 30;
/** The add-on that lifts the {@link FREE_WINDOW_DAYS}-day clamp. */
export const ANALYTICS_ADDON = 'addon.audit_analytics';

export interface AnalyticsRouteDeps {
  analytics: AnalyticsService;
  organizations: OrganizationsService;
  entitlements: EntitlementsService;
  appGroups: AppGroupsService;
  endUsers: EndUsersService;
  collection: EventCollection;
}

/** `days` clamped to 1..{@link MAX_DAYS} (default {@link DEFAULT_DAYS}), then to the free window without the add-on. */
export function clampDays(days: number | undefined, addonActive: boolean): number {
  const d = Math.min(MAX_DAYS, Math.max(1, days ?? DEFAULT_DAYS));
  return addonActive ? d : Math.min(d, FREE_WINDOW_DAYS);
}

/**
 * The analytics routes under `/api/v1/admin/audit` (session; any active member of the
 * organization named by `orgId` (spec 01) or `orgSlug`, 404 otherwise; `/stats/forensic` and the event-collection switch Owner or Admin, else 403
 * `PERMISSION_DENIED`). An `appGroupId` of another organization answers 404.
 * @see docs/api/audit-analytics.md
 */
export function analyticsRoutes(deps: AnalyticsRouteDeps): RouteDef[] {
  const memberOrg = async (slug: string, principal: Parameters<OrganizationsService['resolveContext']>[1]) => {
    const org = await deps.organizations.resolveContext(slug, principal);
    if (!org?.membership) throw notFound();
    return { ...org, membership: org.membership };
  };
  /**
   * The organization a query names by `orgId` (spec 01) or `orgSlug`, where the caller is an active member.
   * @throws 400 `VALIDATION_FAILED` (`field: orgId`) with neither, or both naming different organizations; 404 otherwise
   */
  const queryOrg = async (query: { orgId?: string; orgSlug?: string }, principal: Parameters<OrganizationsService['resolveContext']>[1]) => {
    if (query.orgId === undefined && query.orgSlug === undefined) throw validationFailed('Name the organization with orgId (or orgSlug).', 'orgId');
    const byId = query.orgId === undefined ? undefined : await deps.organizations.findById(query.orgId);
    if (query.orgId !== undefined && !byId) throw notFound();
    if (byId && query.orgSlug !== undefined && byId.slug !== query.orgSlug) throw validationFailed('orgId and orgSlug name different organizations.', 'orgSlug');
    return memberOrg(byId?.slug ?? query.orgSlug!, principal);
  };
  const groupsOf = async (orgId: string, appGroupId?: string) => {
    const off = await deps.collection.disabled(orgId);
    const groups = (await deps.appGroups.list(orgId)).map((g) => ({ id: g.id, name: g.name, eventsEnabled: !off.has(g.id) }));
    if (appGroupId !== undefined && !groups.some((g) => g.id === appGroupId)) throw notFound('Unknown app group.');
    return groups;
  };
  const ownerOrAdmin = (org: Awaited<ReturnType<typeof memberOrg>>, what: string) => {
    if (org.membership.role !== 'Owner' && org.membership.role !== 'Admin') throw permissionDenied('org.audit_event_log.list', `Only the Owner or an Admin may ${what}.`);
  };
  return [
    route({
      method: 'PUT', path: '/api/v1/admin/audit/app-groups/{appGroupId}/events', auth: 'session', params: appGroupParams, body: eventCollectionBody, response: eventCollectionResponse,
      summary: "Turn an app group's event collection on or off", tags: ['audit'],
      handler: async ({ params, body, principal }) => {
        const org = await memberOrg(body.orgSlug, principal);
        ownerOrAdmin(org, "switch an app group's event collection");
        await groupsOf(org.organization.id, params.appGroupId);
        const changed = await deps.collection.set(org.organization.id, params.appGroupId, body.enabled);
        return { appGroupId: params.appGroupId, eventsEnabled: body.enabled, changed };
      },
    }),
    route({
      method: 'GET', path: '/api/v1/admin/audit/analytics', auth: 'session', query: analyticsQuery, response: analyticsResponse,
      summary: 'Usage analytics of end users: KPIs, daily series, providers, top users and IPs, event types', tags: ['audit'],
      handler: async ({ query, principal }) => {
        const org = await queryOrg(query, principal);
        const appGroups = await groupsOf(org.organization.id, query.appGroupId);
        const addonActive = await deps.entitlements.hasAddon(org.organization.id, ANALYTICS_ADDON);
        return deps.analytics.dashboard(org.organization.id, {
          days: clampDays(query.days, addonActive), appGroupId: query.appGroupId, addonActive, appGroups, owner: org.membership.role === 'Owner',
          profiles: async (ids) => {
            const found = await Promise.all(ids.filter(isUuid).map((id) => deps.endUsers.get(org.organization.id, id)));
            return new Map(found.filter((u) => u !== undefined).map((u) => [u.id, { email: u.email, displayName: u.displayName }]));
          },
        });
      },
    }),
    route({
      method: 'GET', path: '/api/v1/admin/audit/analytics/rollup', auth: 'session', query: rollupQuery, response: signInRollupResponse,
      summary: 'Sign-in outcomes and event volumes from sealed daily rollups', tags: ['audit'],
      handler: async ({ query, principal }) => {
        const org = await queryOrg(query, principal);
        const addonActive = await deps.entitlements.hasAddon(org.organization.id, ANALYTICS_ADDON);
        return deps.analytics.signInRollup(org.organization.id, clampDays(query.days, addonActive));
      },
    }),
    route({
      method: 'GET', path: '/api/v1/admin/audit/behavior/rollup', auth: 'session', query: analyticsQuery, response: behaviorRollupResponse,
      summary: 'Pages, dwell time, referrers, campaign sources and countries from sealed daily rollups', tags: ['audit'],
      handler: async ({ query, principal }) => {
        const org = await queryOrg(query, principal);
        if (query.appGroupId !== undefined) await groupsOf(org.organization.id, query.appGroupId);
        return deps.analytics.behaviorRollup(org.organization.id, query.appGroupId, clampDays(query.days, true));
      },
    }),
    route({
      method: 'GET', path: '/api/v1/admin/audit/stats/forensic', auth: 'session', query: forensicQuery, response: forensicResponse,
      summary: "One end user's sign-ins, failed attempts and signups in an app group, by email", tags: ['audit'],
      handler: async ({ query, principal }) => {
        const org = await queryOrg(query, principal);
        ownerOrAdmin(org, "read an end user's trail");
        await groupsOf(org.organization.id, query.appGroupId);
        return deps.analytics.forensic(org.organization.id, query.appGroupId, query.email, query.days ?? 30, query.limit ?? 100);
      },
    }),
  ];
}

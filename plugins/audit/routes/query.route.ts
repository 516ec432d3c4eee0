import { DAY_MS, notFound, route, type Clock, type AuthzService, type HandlerInput, type OrgContext, type Principal, type RouteDef, type SchemaType } from '../../../core/index.ts';
import type { EntitlementsService, OrganizationsService } from '../../orgs/api.ts';
import type { AuditQueryService } from '../api.ts';
import { toAuditEventItem } from '../audit-query.service.ts';
import { auditErrors } from '../errors.ts';
import { isVisible, resolveVisibility, type AuditVisibility } from '../visibility.ts';
import { detailQuery } from '../schemas/detail.query.ts';
import { queryQuery } from '../schemas/query.query.ts';
import { detailResponse, queryResponse } from '../schemas/responses.ts';

/** Longest span of one query, in days. @see docs/audit.md */
export const MAX_SPAN_DAYS = 90;

export interface QueryDeps {
  auditQuery: AuditQueryService;
  clock: Clock;
  organizations: OrganizationsService;
  entitlements: EntitlementsService;
  authz: AuthzService;
  /** The keys plugin is enabled: machine tokens of the organization may query too (docs/audit.md). */
  machineTokens?: boolean;
}

/** The query of either route: both name the organization (`orgSlug`) and the visibility (`scope`). */
type Q = SchemaType<typeof queryQuery> | SchemaType<typeof detailQuery>;

/** The caller's organization named by `orgSlug` (404 when not an active member). */
async function orgOf(deps: QueryDeps, { query, principal }: HandlerInput<unknown, Q, unknown, Principal>): Promise<OrgContext> {
  // A member's session, or a machine token of this very organization (no membership).
  const org = await deps.organizations.resolveContext(query.orgSlug, principal);
  if (!org) throw notFound();
  return org;
}

async function visibilityOf(deps: QueryDeps, input: HandlerInput<unknown, Q, unknown, Principal>, org: OrgContext): Promise<AuditVisibility> {
  return resolveVisibility(input.query.scope ?? 'mine', input.principal, org, deps.authz, () => deps.entitlements.hasFeature(org.organization.id, 'feature.audit.view_all'));
}

/** Start of the plan's retention window (`null` = unlimited). */
async function windowStart(deps: QueryDeps, orgId: string): Promise<{ start: Date | null; days: number | null }> {
  const days = await deps.entitlements.retentionDays(orgId);
  return { days, start: days === null ? null : new Date(deps.clock.now().getTime() - days * DAY_MS) };
}

/**
 * `GET /api/v1/admin/audit/query?orgSlug&scope&eventTypes&from&to&cursor&limit` →
 * `{ items, nextCursor, window: { from, to, windowStartUtc, retentionDays, clipped } }` newest first;
 * `GET /api/v1/admin/audit/query/detail?orgSlug&id[&scope]` → one event with its hashes (404 when
 * not visible or outside the retention window). Scope table, 90-day span (400
 * `QUERY_SPAN_TOO_LONG`), `payment.*` to the owner only, retention clipping by plan.
 * @see docs/api/audit.md "Query"
 */
export function queryRoutes(deps: QueryDeps): RouteDef[] {
  const auth: readonly string[] = deps.machineTokens ? ['session', 'machineToken'] : ['session'];
  return [
    route({
      method: 'GET', path: '/api/v1/admin/audit/query', auth, query: queryQuery,
      response: queryResponse,
      summary: 'Query sealed audit events of an organization', tags: ['audit'],
      handler: async (input) => {
        const org = await orgOf(deps, input);
        const v = await visibilityOf(deps, input, org);
        const { query } = input;
        const now = deps.clock.now();
        const to = query.to ? new Date(query.to) : now;
        const from = query.from ? new Date(query.from) : new Date(to.getTime() - MAX_SPAN_DAYS * DAY_MS);
        if (from > to) throw auditErrors.invalid('from', 'must not be after to');
        const spanDays = (to.getTime() - from.getTime()) / DAY_MS;
        if (spanDays > MAX_SPAN_DAYS) throw auditErrors.spanTooLong(Math.ceil(spanDays));
        const retention = await windowStart(deps, org.organization.id);
        const clipped = retention.start !== null && from < retention.start;
        const effectiveFrom = clipped ? retention.start! : from;
        const limit = query.limit ?? 100;
        const types = (query.eventTypes ?? '').split(',').map((t) => t.trim()).filter(Boolean);
        const page = await deps.auditQuery.page(org.organization.id, v, { from: effectiveFrom, to, eventTypes: types, cursor: query.cursor, limit });
        return {
          ...page,
          window: { from: effectiveFrom.toISOString(), to: to.toISOString(), windowStartUtc: retention.start?.toISOString() ?? null, retentionDays: retention.days, clipped },
        };
      },
    }),
    route({
      method: 'GET', path: '/api/v1/admin/audit/query/detail', auth, query: detailQuery,
      response: detailResponse,
      summary: 'One sealed audit event with its hashes', tags: ['audit'],
      handler: async (input) => {
        const org = await orgOf(deps, input);
        const v = await visibilityOf(deps, input, org);
        const record = await deps.auditQuery.event(org.organization.id, input.query.id!);
        if (!record) throw notFound();
        const retention = await windowStart(deps, org.organization.id);
        if (!isVisible(record, v) || (retention.start && new Date(record.occurredAt) < retention.start)) throw notFound();
        return { ...toAuditEventItem(record), hashVersion: record.hashVersion ?? 1, payloadHash: record.payloadHash, prevHash: record.prevHash, chainHash: record.chainHash };
      },
    }),
  ];
}

import { route, type RouteDef } from '../../../core/index.ts';
import { ScimFilterError } from '../filter/ast.ts';
import { resourceTypes, schemas, serviceProviderConfig } from '../discovery.ts';
import { scimError, scimReply } from '../scim-reply.ts';
import { idParams, scimResource, slugParams } from '../schemas/scim.schemas.ts';
import { LIST_RESPONSE_URN, USER_SCHEMA_URN } from '../user-schema.ts';
import { project, readProjection } from '../projection.ts';
import { MAX_PAGE, type ScimUsersService } from '../users.service.ts';

const common = { auth: 'scimToken' as const, org: true as const, tags: ['scim'], response: scimResource };

/**
 * SCIM 2.0 under `/scim/v2/{slug}` (RFC 7644), authenticated by the organization's SCIM token:
 * discovery and Users (read). Errors are SCIM error bodies. @see docs/api/scim.md
 */
export function scimRoutes(users: ScimUsersService, baseUrl: string): RouteDef[] {
  const base = (slug: string) => `${baseUrl}/scim/v2/${slug}`;
  return [
    route({
      ...common, method: 'GET', path: '/scim/v2/{slug}/ServiceProviderConfig', params: slugParams, summary: 'SCIM service provider configuration',
      handler: ({ org }) => scimReply(200, serviceProviderConfig(base(org.organization.slug))),
    }),
    route({
      ...common, method: 'GET', path: '/scim/v2/{slug}/ResourceTypes', params: slugParams, summary: 'SCIM resource types',
      handler: ({ org }) => {
        const types = resourceTypes(base(org.organization.slug));
        return scimReply(200, { schemas: [LIST_RESPONSE_URN], totalResults: types.length, startIndex: 1, itemsPerPage: types.length, Resources: types });
      },
    }),
    route({
      ...common, method: 'GET', path: '/scim/v2/{slug}/Schemas', params: slugParams, summary: 'SCIM schemas',
      handler: ({ org }) => {
        const all = schemas(base(org.organization.slug));
        return scimReply(200, { schemas: [LIST_RESPONSE_URN], totalResults: all.length, startIndex: 1, itemsPerPage: all.length, Resources: all });
      },
    }),
    route({
      ...common, method: 'GET', path: '/scim/v2/{slug}/Schemas/{id}', params: idParams, summary: 'One SCIM schema',
      handler: ({ org, params }) => {
        const one = schemas(base(org.organization.slug)).find((s) => s.id === params.id);
        return one ? scimReply(200, one) : scimError(404, `No schema ${params.id}.`);
      },
    }),
    route({
      ...common, method: 'GET', path: '/scim/v2/{slug}/Users', params: slugParams, summary: 'SCIM Users: list, filter, page',
      handler: async ({ org, query }) => {
        const page = paging(query as Record<string, unknown>);
        const projection = readProjection(query as Record<string, unknown>, USER_SCHEMA_URN);
        if (typeof page === 'string' || typeof projection === 'string') return scimError(400, typeof page === 'string' ? page : (projection as string), 'invalidValue');
        try {
          const list = await users.list(org.organization.id, org.organization.slug, page);
          return scimReply(200, { ...list, Resources: list.Resources.map((u) => project(u, projection)) });
        } catch (err) {
          if (err instanceof ScimFilterError) return scimError(400, err.detail, err.scimType);
          throw err;
        }
      },
    }),
    route({
      ...common, method: 'GET', path: '/scim/v2/{slug}/Users/{id}', params: idParams, summary: 'One SCIM User',
      handler: async ({ org, params, query }) => {
        const projection = readProjection(query as Record<string, unknown>, USER_SCHEMA_URN);
        if (typeof projection === 'string') return scimError(400, projection, 'invalidValue');
        const user = await users.get(org.organization.id, org.organization.slug, params.id);
        return user ? scimReply(200, project(user, projection)) : scimError(404, `No User ${params.id}.`);
      },
    }),
  ];
}

/** `filter`, `startIndex` (≥ 1, default 1) and `count` (≥ 0, at most 200, default 100); a message for anything else. */
export function paging(query: Record<string, unknown>): { filter?: string; startIndex: number; count: number } | string {
  const one = (name: string) => (Array.isArray(query[name]) ? undefined : (query[name] as string | undefined));
  for (const name of ['filter', 'startIndex', 'count']) if (Array.isArray(query[name])) return `${name} is given more than once.`;
  const int = (name: string, fallback: number, min: number) => {
    const raw = one(name);
    if (raw === undefined) return fallback;
    if (!/^-?\d{1,9}$/.test(raw)) return NaN;
    return Math.max(min, Number(raw)); // RFC 7644 §3.4.2.4: values below the minimum count as the minimum
  };
  const startIndex = int('startIndex', 1, 1);
  const count = int('count', 100, 0);
  if (Number.isNaN(startIndex) || Number.isNaN(count)) return 'startIndex and count are integers.';
  return { filter: one('filter'), startIndex, count: Math.min(count, MAX_PAGE) };
}

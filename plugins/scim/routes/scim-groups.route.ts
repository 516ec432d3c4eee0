import { route, type RouteDef } from '../../../core/index.ts';
import { ScimFilterError } from '../filter/ast.ts';
import { applyGroupPatch, readGroup, type GroupState } from '../group-input.ts';
import { GROUP_SCHEMA_URN } from '../group-schema.ts';
import type { ScimGroupsService } from '../groups.service.ts';
import type { ScimGroupsWriter } from '../groups-writer.service.ts';
import { readProjection } from '../projection.ts';
import { scimError, scimReply } from '../scim-reply.ts';
import { idParams, scimResource, slugParams } from '../schemas/scim.schemas.ts';
import type { InputProblem } from '../user-input.ts';
import { ScimConflict } from '../users-writer.service.ts';
import { paging } from './scim.route.ts';

const common = { auth: 'scimToken' as const, org: true as const, tags: ['scim'] };
const isProblem = (x: unknown): x is InputProblem => typeof x === 'object' && x !== null && 'scimType' in x && !(x instanceof ScimFilterError);

/** Runs a read or write and answers its result with this answer's own headers; refusals are thrown (see `withScimErrors`). */
async function answer(run: () => Promise<unknown>, status: number, headers?: (body: any) => Record<string, string>) {
  const body = await run();
  return status === 204 ? scimReply(204, undefined) : scimReply(status, body, headers?.(body));
}

/**
 * SCIM Groups under `/scim/v2/{slug}/Groups` (RFC 7644 §3.3–§3.6): the organization's roles, their
 * members the Users holding them. GET (filter, paging, `attributes`/`excludedAttributes`), POST
 * (creates a role), PUT, PATCH (every form Okta and Entra ID send; 204), DELETE (deletes the role).
 * @see docs/api/scim.md "Groups"
 */
export function scimGroupRoutes(groups: ScimGroupsService, writer: ScimGroupsWriter): RouteDef[] {
  return [
    route({
      ...common, method: 'GET', path: '/scim/v2/{slug}/Groups', params: slugParams, response: scimResource, summary: 'SCIM Groups (roles): list, filter, page',
      handler: async ({ org, query }) => {
        const page = paging(query as Record<string, unknown>);
        const projection = readProjection(query as Record<string, unknown>, GROUP_SCHEMA_URN);
        if (typeof page === 'string' || typeof projection === 'string') return scimError(400, typeof page === 'string' ? page : (projection as string), 'invalidValue');
        return answer(() => groups.list(org.organization.id, org.organization.slug, page, projection), 200);
      },
    }),
    route({
      ...common, method: 'GET', path: '/scim/v2/{slug}/Groups/{id}', params: idParams, response: scimResource, summary: 'One SCIM Group (role)',
      handler: async ({ org, params, query }) => {
        const projection = readProjection(query as Record<string, unknown>, GROUP_SCHEMA_URN);
        if (typeof projection === 'string') return scimError(400, projection, 'invalidValue');
        const group = await groups.get(org.organization.id, org.organization.slug, params.id, projection);
        return group ? scimReply(200, group) : scimError(404, `No Group ${params.id}.`);
      },
    }),
    route({
      ...common, method: 'POST', path: '/scim/v2/{slug}/Groups', params: slugParams, status: 201, response: { 201: scimResource }, summary: 'Provision a Group (creates a role)',
      handler: ({ org, body, principal }) => {
        const input = readGroup(body);
        if (isProblem(input)) return scimError(400, input.detail, input.scimType);
        return answer(() => writer.create(org.organization.id, org.organization.slug, input, principal.id), 201, (g) => ({ location: g.meta.location }));
      },
    }),
    route({
      ...common, method: 'PUT', path: '/scim/v2/{slug}/Groups/{id}', params: idParams, response: scimResource, summary: 'Replace a Group: rename, reconcile members',
      handler: ({ org, params, body, principal }) => {
        const input = readGroup(body);
        if (isProblem(input)) return scimError(400, input.detail, input.scimType);
        return answer(async () => {
          await writer.update(org.organization.id, params.id, () => input, principal.id);
          const group = await groups.get(org.organization.id, org.organization.slug, params.id);
          if (!group) throw new ScimConflict(404, `No Group ${params.id}.`); // deleted since
          return group;
        }, 200);
      },
    }),
    route({
      ...common, method: 'PATCH', path: '/scim/v2/{slug}/Groups/{id}', params: idParams, response: { 204: null }, summary: 'Patch a Group: rename, add or remove members',
      handler: ({ org, params, body, principal }) => answer(() => writer.update(org.organization.id, params.id, (current) => patched(body, params.id, current), principal.id), 204),
    }),
    route({
      ...common, method: 'DELETE', path: '/scim/v2/{slug}/Groups/{id}', params: idParams, response: { 204: null }, summary: 'Delete a Group (deletes the role)',
      handler: ({ org, params, principal }) => answer(() => writer.delete(org.organization.id, params.id, principal.id), 204),
    }),
  ];
}

/** The PatchOp applied to the current state; a refusal thrown as a SCIM error. */
function patched(body: unknown, id: string, current: GroupState): GroupState {
  const target = applyGroupPatch(body, id, current);
  if (target instanceof ScimFilterError) throw new ScimConflict(400, target.detail, target.scimType);
  if (isProblem(target)) throw new ScimConflict(400, target.detail, target.scimType);
  return target;
}

import { route, type RouteDef } from '../../../core/index.ts';
import { scimError, scimReply } from '../scim-reply.ts';
import { idParams, scimResource, slugParams } from '../schemas/scim.schemas.ts';
import { readUser, type InputProblem, type UserInput } from '../user-input.ts';
import type { ScimUsersWriter } from '../users-writer.service.ts';

const common = { auth: 'scimToken' as const, org: true as const, tags: ['scim'] };
const isProblem = (x: UserInput | InputProblem): x is InputProblem => 'scimType' in x;

/** Runs a write and answers its result with this answer's own headers (a 201's `location`); refusals are thrown (see `withScimErrors`). */
async function answer(run: () => Promise<unknown>, status: number, headers?: (body: any) => Record<string, string>) {
  const body = await run();
  return status === 204 ? scimReply(204, undefined) : scimReply(status, body, headers?.(body));
}

/**
 * Provisioning writes on `/scim/v2/{slug}/Users` (RFC 7644 §3.3, §3.5): POST, PUT, PATCH, DELETE.
 * Bodies are read by SCIM's rules (unknown attributes accepted and not kept), so refusals are SCIM
 * error bodies (the writer's `ScimConflict`, answered by `withScimErrors`).
 * @see docs/api/scim.md "Provisioning"
 */
export function scimUserWriteRoutes(writer: ScimUsersWriter): RouteDef[] {
  return [
    route({
      ...common, method: 'POST', path: '/scim/v2/{slug}/Users', params: slugParams, status: 201, response: { 201: scimResource }, summary: 'Provision a User',
      handler: ({ org, body, principal }) => {
        const input = readUser(body);
        if (isProblem(input)) return scimError(400, input.detail, input.scimType);
        return answer(() => writer.create(org.organization.id, org.organization.slug, input, principal.id), 201, (u) => ({ location: u.meta.location }));
      },
    }),
    route({
      ...common, method: 'PUT', path: '/scim/v2/{slug}/Users/{id}', params: idParams, response: scimResource, summary: 'Replace a User',
      handler: ({ org, params, body, principal }) => {
        const input = readUser(body);
        if (isProblem(input)) return scimError(400, input.detail, input.scimType);
        return answer(() => writer.update(org.organization.id, org.organization.slug, params.id, input, 'replace', principal.id), 200);
      },
    }),
    route({
      ...common, method: 'PATCH', path: '/scim/v2/{slug}/Users/{id}', params: idParams, response: scimResource, summary: 'Patch a User',
      handler: ({ org, params, body, principal }) => answer(() => writer.patch(org.organization.id, org.organization.slug, params.id, body, principal.id), 200),
    }),
    route({
      ...common, method: 'DELETE', path: '/scim/v2/{slug}/Users/{id}', params: idParams, response: { 204: null }, summary: 'Delete (revoke) a User',
      handler: ({ org, params }) => answer(() => writer.delete(org.organization.id, params.id), 204),
    }),
  ];
}

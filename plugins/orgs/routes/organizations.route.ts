import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { PlanKey } from '../plans.ts';
import type { OrganizationsService } from '../service-interfaces.ts';
import type { OrgType } from '../models/organization.model.ts';
import { orgsErrors } from '../errors.ts';
import { createOrgBody } from '../schemas/create-org.body.ts';
import { platformPartnerBody, setPlanBody } from '../schemas/set-plan.body.ts';
import { slugParams } from '../schemas/slug.params.ts';
import { memberOrganizationResponse, platformPartnerResponse, setPlanResponse } from '../schemas/responses.ts';

/**
 * `POST /api/org/create` (201, the creator becomes the active `Owner`), `GET /api/org/{slug}`
 * (members only; others 404), `PUT /api/v1/admin/orgs/{slug}/plan` (platform admins).
 * @see docs/api/orgs.md
 */
export function organizationRoutes(orgs: OrganizationsService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/create', auth: 'session', body: createOrgBody, status: 201,
      response: memberOrganizationResponse,
      summary: 'Create an organization', tags: ['orgs'],
      handler: async ({ body, principal }) => {
        const dto = await orgs.create(principal.accountId, { name: body.name.trim(), slug: body.slug, type: body.type });
        return reply(201, { ...dto, role: 'Owner' }, { location: `/api/org/${dto.slug}` });
      },
    }),
    route({
      method: 'GET', path: '/api/org/{slug}', auth: 'session', org: true, params: slugParams,
      response: memberOrganizationResponse,
      summary: 'An organization the caller belongs to', tags: ['orgs'],
      handler: async ({ org }) => {
        const row = await orgs.findById(org.organization.id);
        if (!row) throw orgsErrors.organizationNotFound();
        return { ...(await orgs.toDto(row)), role: org.membership?.role ?? null };
      },
    }),
    route({
      method: 'PUT', path: '/api/v1/admin/orgs/{slug}/plan', auth: 'session', platformAdmin: true, body: setPlanBody, params: slugParams,
      response: setPlanResponse,
      summary: "Set an organization's plan (platform admins)", tags: ['admin'],
      handler: async ({ params, body }) => {
        const updated = await orgs.setPlan(params.slug, body.planKey);
        if (!updated) throw orgsErrors.organizationNotFound();
        return { slug: updated.slug, planKey: updated.planKey };
      },
    }),
    route({
      method: 'PUT', path: '/api/v1/admin/orgs/{slug}/platform-partner', auth: 'session', platformAdmin: true, body: platformPartnerBody, params: slugParams,
      response: platformPartnerResponse,
      summary: 'Mark or unmark an organization as a platform partner (platform admins)', tags: ['admin'],
      handler: async ({ params, body, principal }) => {
        const updated = await orgs.setPlatformPartner(params.slug, body.platformPartner, principal.accountId);
        if (!updated) throw orgsErrors.organizationNotFound();
        return { slug: updated.slug, platformPartner: updated.platformPartner };
      },
    }),
  ];
}

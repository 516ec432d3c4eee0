import { route, type RouteDef } from '../../../core/index.ts';
import type { OrganizationsService } from '../service-interfaces.ts';
import type { OrgTypeService } from '../service-interfaces.ts';
import type { MasterSealsService } from '../service-interfaces.ts';
import type { OrgType } from '../models/organization.model.ts';
import { orgsErrors } from '../errors.ts';
import { slugParams } from '../schemas/slug.params.ts';
import { upgradeTypeBody } from '../schemas/upgrade-type.body.ts';
import { masterSeal, upgradeTypeResponse } from '../schemas/responses.ts';

/**
 * `POST /api/org/{slug}/upgrade-type {type, masterSeal?}` (Owner only, 403 `PERMISSION_DENIED`
 * otherwise) → the organization with `ready` and `masterSeal`; becoming `Corporation` issues the
 * Org Master Seal. `GET /api/org/{slug}/master-seal` (members) → the public part, 404 when none.
 * @see docs/api/orgs.md
 */
export function orgTypeRoutes(orgs: OrganizationsService, orgType: OrgTypeService, masterSeals: MasterSealsService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/{slug}/upgrade-type', auth: 'session', org: true, params: slugParams, body: upgradeTypeBody,
      personOnly: "an owner's decision: only the organization Owner changes its type (and holds the Org Master Seal)",
      response: upgradeTypeResponse,
      summary: 'Change the organization type (issues the Org Master Seal for Corporation)', tags: ['orgs'],
      handler: async ({ org, principal, body }) => {
        if (org.membership?.role !== 'Owner') throw orgsErrors.ownerOnlyTypeChange();
        const { org: updated, masterSeal } = await orgType.change(org.organization.id, principal.accountId, body);
        return { ...(await orgs.toDto(updated)), role: 'Owner', masterSeal };
      },
    }),
    route({
      method: 'GET', path: '/api/org/{slug}/master-seal', auth: 'session', org: true, params: slugParams,
      response: masterSeal,
      summary: "The organization's master seal (public key)", tags: ['orgs'],
      handler: async ({ org }) => {
        const seal = await masterSeals.get(org.organization.id);
        if (!seal) throw orgsErrors.masterSealNotFound();
        return seal;
      },
    }),
  ];
}

/**
 * The orgs plugin's public API: service refs, types and extension points other plugins may import.
 */
import type { Knex } from 'knex';
import { createExtensionPoint, createServiceRef, type OrgContext } from '../../core/index.ts';
import type { PlanKey } from './plans.ts';
import type { MembershipRole } from './memberships.service.ts';
import type { OrganizationsService, EntitlementsService, MasterSealsService, OrgTypeService, MembershipsService } from './service-interfaces.ts';

export type { OrganizationsService, EntitlementsService, MasterSealsService, OrgTypeService, MembershipsService, OrgRecord } from './service-interfaces.ts';

export type { MasterSealDto } from './master-seals.service.ts';
export type { MembershipDto, MembershipRole, MembershipStatus } from './memberships.service.ts';
export type { OrgType } from './models/organization.model.ts';
export type { PlanKey } from './plans.ts';

/**
 * The kernel's {@link OrgContext} as the orgs plugin resolves it (`OrganizationsService.resolveContext`,
 * the `orgResolver` it contributes): with the organization's plan and the caller's role narrowed.
 */
export interface OrgsContext extends OrgContext {
  organization: OrgContext['organization'] & { planKey: PlanKey };
  membership?: { id: string; role: MembershipRole };
}

/** Organization (public DTO) plus the fields a member sees. @see docs/api/public-v1.md */
export interface OrgDto {
  id: string;
  name: string;
  slug: string;
  /** true only when the organization has an Org Master Seal AND its owner a Personal Seal. */
  ready: boolean;
  type: string;
  planKey: string;
  createdAt: string;
}

/** The organization being created, as the creation hooks see it. */
export interface CreatedOrg {
  id: string;
  slug: string;
  name: string;
  type: string;
  ownerAccountId: string;
}

export const orgsRefs = {
  organizations: createServiceRef<OrganizationsService>('orgs.organizations'),
  entitlements: createServiceRef<EntitlementsService>('orgs.entitlements'),
  /** Org Master Seals: `get`, `has`, `sign` (ES256) — e.g. for roost re-arm tickets and meetings. */
  masterSeals: createServiceRef<MasterSealsService>('orgs.masterSeals'),
  /** `upgrade-type`: organization type changes and master seal issuance. */
  orgType: createServiceRef<OrgTypeService>('orgs.orgType'),
  /** Reading and changing memberships (members and rbac go through it, never the table). */
  memberships: createServiceRef<MembershipsService>('orgs.memberships'),
};

export const orgsExtensions = {
  /** Runs inside the creation transaction (e.g. keys makes the signing key); a throw aborts creation. */
  onCreate: createExtensionPoint<(org: CreatedOrg, trx: Knex.Transaction) => Promise<void>>('orgs.onCreate'),
  /**
   * Answers one half of `ready` (master seal present; owner's personal seal present). `ready` is true
   * only when at least one check is registered and all pass; with none registered it is false.
   */
  readiness: createExtensionPoint<(org: { id: string; ownerAccountId: string }) => Promise<boolean>>('orgs.readiness'),
};

/**
 * The membership role a caller acts with in role rules (who may act on Admins, change roles, pass
 * on which permissions): the member's own role, or `Member` for a credential bound to the
 * organization without a membership (a machine token), so such a credential never gets a role's
 * privileges beyond the scopes it holds.
 * @see docs/api/keys.md (machine tokens on organization routes)
 */
export function actingRole(org: OrgContext | null): MembershipRole {
  return (org?.membership?.role as MembershipRole | undefined) ?? 'Member';
}

/** Shared response schema other plugins reference (`schemaRef`): an organization. */
export { organization as organizationSchema } from './schemas/responses.ts';

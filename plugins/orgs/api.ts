/**
 * The orgs plugin's public API: service refs, types and extension points other plugins may import.
 */
import type { Knex } from 'knex';
import { createExtensionPoint, createServiceRef } from '../../core/index.ts';
import type { OrganizationsService } from './organizations.service.ts';
import type { EntitlementsService } from './entitlements.service.ts';

export type { OrganizationsService } from './organizations.service.ts';
export type { EntitlementsService } from './entitlements.service.ts';
export type { OrgType } from './models/organization.model.ts';

/** Organization (public DTO) plus the fields a member sees. @see spec 01 "Organization (public DTO)" */
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

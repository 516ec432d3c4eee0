/**
 * The orgs plugin's service interfaces: what other plugins may call through its refs (`api.ts`).
 * The classes that implement them stay inside the plugin.
 */
import type { Principal } from '../../core/index.ts';
import type { OrgDto, OrgsContext } from './api.ts';
import type { MasterSealDto } from './master-seals.service.ts';
import type { MembershipDto, MembershipRole, MembershipStatus } from './memberships.service.ts';
import type { OrgType } from './models/organization.model.ts';
import type { PlanKey } from './plans.ts';
import type { Knex } from 'knex';

/** An organization as stored (`orgs.organizations`); `OrgDto` is its public shape. */
export interface OrgRecord {
  id: string;
  slug: string;
  name: string;
  type: OrgType;
  planKey: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  /** Marked a platform partner by a platform administrator. */
  platformPartner: boolean;
}

/** `orgs.organizations`: creating organizations and resolving them for requests. */
export interface OrganizationsService {
  /**
   * Creates an organization on the default plan with the creator as active `Owner`, running the
   * creation hooks in the same transaction.
   * @throws 400 `SLUG_RESERVED`, 409 `SLUG_TAKEN`.
   */
  create(accountId: string, input: { name: string; slug: string; type: OrgType }): Promise<OrgDto>;
  /** The organization with this slug, or `undefined`. */
  findBySlug(slug: string): Promise<OrgRecord | undefined>;
  /** The organization with this id, or `undefined`. */
  findById(id: string): Promise<OrgRecord | undefined>;
  /**
   * The request context for `{slug}`: the caller's active membership for accounts, or the bound
   * organization for org-bound credentials; `null` when neither (the route answers 404).
   */
  resolveContext(slug: string, principal: Principal | null): Promise<OrgsContext | null>;
  /** Active organizations of an account with its role, oldest first; `role` narrows to memberships with that role (in the query). */
  listForAccount(accountId: string, role?: string): Promise<Array<OrgDto & { role: string }>>;
  /** Sets the plan (platform admins). @throws nothing; answers `undefined` for an unknown slug. */
  setPlan(slug: string, planKey: PlanKey): Promise<OrgRecord | undefined>;
  /**
   * Marks or unmarks the organization as a platform partner (audited `org.platform_partner.changed`
   * on its chain when it changes). @returns `undefined` for an unknown slug
   * @see docs/api/orgs.md "Platform partners"
   */
  setPlatformPartner(slug: string, platformPartner: boolean, byAccountId: string): Promise<OrgRecord | undefined>;
  /** The public DTO, with `ready` from the registered readiness checks. */
  toDto(org: OrgRecord): Promise<OrgDto>;
}

/**
 * `orgs.entitlements`: what an organization's plan and add-ons allow. Other plugins ask it
 * (`hasFeature(orgId, 'feature.audit.view_all')`) instead of reading plans themselves.
 */
export interface EntitlementsService {
  /** The organization's plan. @throws Error for an unknown organization id. */
  planOf(orgId: string): Promise<PlanKey>;
  /** true when the plan includes `feature` (unknown feature keys are never included). */
  hasFeature(orgId: string, feature: string): Promise<boolean>;
  /** true when the add-on is enabled for the organization. */
  hasAddon(orgId: string, addon: string): Promise<boolean>;
  /** Audit query retention in days for the organization's plan; `null` = unlimited. */
  retentionDays(orgId: string): Promise<number | null>;
}

/**
 * `orgs.masterSeals`: the organization signing key pair ("Org Master Seal"). Issued at creation for
 * `Corporation` organizations and through `upgrade-type` for others; the private JWK is stored only
 * envelope-encrypted (`crypto.envelope`, AAD `orgs.master_seal:<orgId>`).
 * @see docs/api/public-v1.md
 */
export interface MasterSealsService {
  /** Issues the organization's master seal in `trx`, or returns the one it has (idempotent). */
  issue(orgId: string, byAccountId: string, trx: Knex.Transaction): Promise<MasterSealDto>;
  /** The organization's master seal (public part), or null. */
  get(orgId: string, trx?: Knex.Transaction): Promise<MasterSealDto | null>;
  /** Whether the organization has a master seal (half of `ready`). */
  has(orgId: string): Promise<boolean>;
  /**
   * Signs `data` with the master seal: ECDSA P-256 / SHA-256 as 64-byte `r‖s` (JWS ES256 form).
   * @throws Error when the organization has none or the envelope does not decrypt.
   */
  sign(orgId: string, data: Uint8Array): Promise<Buffer>;
}

/**
 * Changes an organization's type (`POST /api/org/{slug}/upgrade-type`).
 *
 * Rules (Aerie's design, documented in docs/api/orgs.md):
 * - becoming `Corporation` issues the Org Master Seal when the organization has none; any other
 *   type gets one when the request asks for it (`masterSeal: true`);
 * - a `Corporation` stays one: leaving it is 409 `TYPE_CHANGE_NOT_ALLOWED` (its seal and board bind it);
 * - the same type again changes nothing and still issues a requested seal;
 * - type and seal change in one transaction; `org.type.changed` is emitted when the type changed.
 */
export interface OrgTypeService {
  /** @throws 409 `TYPE_CHANGE_NOT_ALLOWED` */
  change(orgId: string, byAccountId: string, input: { type: OrgType; masterSeal?: boolean }): Promise<{ org: OrgRecord; masterSeal: MasterSealDto | null }>;
}

/**
 * `orgs.memberships`: the only way other plugins (members, rbac) read and change `orgs.memberships`.
 * Every method takes the organization id and filters by it, so another organization's membership id
 * is simply not found. Writes take the caller's transaction; reads take one optionally (on embedded
 * PGlite a read outside an open transaction would wait for its single connection).
 * @see docs/api/members.md
 */
export interface MembershipsService {
  /** The membership `id` of organization `orgId`, or `undefined` (unknown or another organization's). */
  findById(orgId: string, id: string, trx?: Knex | Knex.Transaction): Promise<MembershipDto | undefined>;
  /** The membership of `accountId` in `orgId` (any status), or `undefined`. */
  findByAccount(orgId: string, accountId: string, trx?: Knex | Knex.Transaction): Promise<MembershipDto | undefined>;
  /** Memberships of `orgId`, oldest first; `statuses` filters (default: all). */
  list(orgId: string, statuses?: readonly MembershipStatus[], trx?: Knex | Knex.Transaction): Promise<MembershipDto[]>;
  /**
   * The accounts of the active memberships of `orgId` (only membership `ids`, only `roles`, when
   * given) as a query selecting `account_id`, not run: for another plugin's set-based statement
   * (`insert … select … from (query)`), so a fan-out to every member is one statement.
   */
  activeAccountsQuery(orgId: string, filter?: { ids?: readonly string[]; roles?: readonly MembershipRole[] }, trx?: Knex | Knex.Transaction): Knex.QueryBuilder;
  /**
   * Makes `accountId` an active member with `role`: inserts a membership, or activates a revoked or
   * invited one (same id). @throws Error when the account already has an active or suspended
   * membership (callers check first and answer 409).
   */
  join(orgId: string, accountId: string, role: MembershipRole, trx: Knex.Transaction): Promise<MembershipDto>;
  /**
   * Records `accountId` as `invited` (SCIM provisioning of an address that has an Aerie account):
   * inserts a membership, or turns a revoked one into it; it acts only once the person accepts.
   * @throws Error when the account already has a membership that is not revoked (callers check first).
   */
  invite(orgId: string, accountId: string, trx: Knex.Transaction): Promise<MembershipDto>;
  /** Sets the status of a membership of `orgId`. @returns the updated membership, or `undefined` when not found. */
  setStatus(orgId: string, id: string, status: MembershipStatus, trx: Knex.Transaction): Promise<MembershipDto | undefined>;
  /** Sets the role of a membership of `orgId`. @returns the updated membership, or `undefined` when not found. */
  setRole(orgId: string, id: string, role: MembershipRole, trx: Knex.Transaction): Promise<MembershipDto | undefined>;
  /** Deletes a membership of `orgId`. @returns the deleted membership, or `undefined` when not found. */
  remove(orgId: string, id: string, trx: Knex.Transaction): Promise<MembershipDto | undefined>;
}

import type { JsonWebKey } from 'node:crypto';
import { Model } from 'objection';

/** Organization types. @see docs/api/orgs.md */
export const ORG_TYPES = ['Standard', 'Corporation', 'Project'] as const;
export type OrgType = (typeof ORG_TYPES)[number];

/** Row of `orgs.organizations`. */
export class OrganizationModel extends Model {
  static override tableName = 'orgs.organizations';
  id!: string;
  slug!: string;
  name!: string;
  type!: OrgType;
  planKey!: string;
  /** Marked by a platform administrator (docs/api/orgs.md "Platform partners"). */
  platformPartner!: boolean;
  createdBy!: string;
  createdAt!: Date;
  updatedAt!: Date;
}

/** Row of `orgs.memberships`: role `Owner` | `Admin` | `Member`, status `active` | `suspended` | `revoked`. */
export class MembershipModel extends Model {
  static override tableName = 'orgs.memberships';
  id!: string;
  orgId!: string;
  accountId!: string;
  role!: 'Owner' | 'Admin' | 'Member';
  status!: 'active' | 'suspended' | 'revoked' | 'invited';
  createdAt!: Date;
  updatedAt!: Date;
}

/** Row of `orgs.addons`. */
export class AddonModel extends Model {
  static override tableName = 'orgs.addons';
  static override idColumn = ['orgId', 'addonKey'];
  orgId!: string;
  addonKey!: string;
  enabledAt!: Date;
}

/** Row of `orgs.master_seals`: one Org Master Seal per organization, private JWK envelope-encrypted. */
export class MasterSealModel extends Model {
  static override tableName = 'orgs.master_seals';
  static override idColumn = 'orgId';
  orgId!: string;
  kid!: string;
  alg!: string;
  publicJwk!: JsonWebKey | string;
  privateJwkEnc!: string;
  createdBy!: string;
  createdAt!: Date;
}

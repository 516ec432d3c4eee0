import type { Knex } from 'knex';
import { NAME_PARTS, type UserInput } from './user-input.ts';
import type { ScimUsersService } from './users.service.ts';

/** A refusal the routes answer as a SCIM error. */
export class ScimConflict extends Error {
  constructor(readonly status: 400 | 403 | 404 | 409, readonly detail: string, readonly scimType?: string) {
    super(detail);
  }
}

/** Input members → `scim.user_attributes` columns (knex maps the camel-case names). */
const COLUMNS = { userName: 'userName', externalId: 'externalId', displayName: 'displayName', formatted: 'formattedName',
  familyName: 'familyName', givenName: 'givenName', middleName: 'middleName', honorificPrefix: 'honorificPrefix', honorificSuffix: 'honorificSuffix' } as const;
type Kept = keyof typeof COLUMNS;
const KEPT = ['userName', 'externalId', 'displayName', ...NAME_PARTS] as Kept[];

/**
 * Writes what the identity provider set on a User to `scim.user_attributes` inside `trx`: with
 * `replace` (POST, PUT) every kept attribute, those the input leaves out cleared; else (PATCH)
 * only those it sets. Nothing to set and no row yet writes nothing (a member the identity provider
 * never wrote stays one). `userName` is unique among the organization's Users in any case, whether
 * stored or the email of a member not provisioned; `externalId` exactly. A revoked membership
 * holds neither: its stale values are released for the new holder.
 * @returns the attributes whose stored value changed, by name (`userName`, `familyName`, …; never values)
 * @throws ScimConflict 409 `uniqueness` for a `userName` or `externalId` another User holds
 */
export async function writeUserAttributes(
  trx: Knex.Transaction, users: ScimUsersService, now: Date, orgId: string, membershipId: string, input: UserInput, replace: boolean,
): Promise<string[]> {
  const set: Partial<Record<Kept, string | null>> = {};
  for (const key of KEPT) {
    const value = replace ? (input[key] ?? null) : input[key];
    if (value !== undefined) set[key] = value;
  }
  if (set.userName) await claimUserName(trx, users, orgId, membershipId, set.userName);
  if (set.externalId) await claimExternalId(trx, orgId, membershipId, set.externalId);
  const before = (await trx('scim.user_attributes').where({ orgId, membershipId }).forUpdate().first(...KEPT.map((k) => COLUMNS[k]))) as
    Record<string, string | null> | undefined;
  const changed = KEPT.filter((key) => key in set && (before?.[COLUMNS[key]] ?? null) !== set[key]);
  // Nothing changed, nothing written: the User's lastModified and version (ETag) stay.
  if (before ? changed.length === 0 : Object.keys(set).length === 0) return changed;
  const row = Object.fromEntries(Object.entries(set).map(([key, value]) => [COLUMNS[key as Kept], value]));
  await trx('scim.user_attributes').insert({ membershipId, orgId, ...row, updatedAt: now }).onConflict('membershipId').merge({ ...row, updatedAt: now });
  return changed;
}

/** 409 unless no other User's `userName` is `userName` (any case); a revoked membership's stored one is released. */
async function claimUserName(trx: Knex.Transaction, users: ScimUsersService, orgId: string, membershipId: string, userName: string): Promise<void> {
  const lower = userName.toLowerCase();
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`scim.user-name:${orgId}:${lower}`]);
  if ((await users.withUserName(trx, orgId, userName)).some((id) => id !== membershipId)) {
    throw new ScimConflict(409, `userName ${userName} belongs to another User.`, 'uniqueness');
  }
  await trx('scim.user_attributes').where({ orgId }).whereRaw('lower(user_name) = ?', [lower]).whereNot({ membershipId }).update({ userName: null });
}

/** 409 unless no other live User holds `externalId`; a revoked membership's is released. */
async function claimExternalId(trx: Knex.Transaction, orgId: string, membershipId: string, externalId: string): Promise<void> {
  const live = await trx('scim.user_attributes as s').join('orgs.member_directory as d', 'd.membership_id', 's.membership_id')
    .where('s.org_id', orgId).where('s.external_id', externalId).whereNot('s.membership_id', membershipId).whereNot('d.status', 'revoked').first('s.membership_id');
  if (live) throw new ScimConflict(409, `externalId ${externalId} belongs to another User.`, 'uniqueness');
  await trx('scim.user_attributes').where({ orgId, externalId }).whereNot({ membershipId }).update({ externalId: null });
}

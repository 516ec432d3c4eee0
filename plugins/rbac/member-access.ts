import type { Knex } from 'knex';
import { membershipTypeOf, type MembershipType } from './membership-type.ts';

/**
 * Rebuilds the access rows of `membershipIds` (of `orgId`) from their assignments, inside `trx`: the
 * union of their snapshots, their membership type, and a version one higher (so cached permission
 * sets are rebuilt on the next check). Two statements whatever the number of members.
 * @returns each member's new membership type
 * @see docs/api/roles.md "Snapshots"
 */
export async function recomputeAccess(trx: Knex.Transaction, orgId: string, membershipIds: readonly string[], now: Date): Promise<Map<string, MembershipType>> {
  const types = new Map<string, MembershipType>();
  if (membershipIds.length === 0) return types;
  const rows = (await trx('rbac.role_assignments as a').join('rbac.roles as r', 'r.id', 'a.roleId')
    .where('a.orgId', orgId).whereIn('a.membershipId', membershipIds as string[])
    .select('a.membershipId', 'a.grants', 'r.roleKey')) as Array<{ membershipId: string; grants: string[]; roleKey: string }>;
  const byMember = new Map<string, typeof rows>(membershipIds.map((id) => [id, []]));
  for (const r of rows) byMember.get(r.membershipId)!.push(r);
  const access = [...byMember].map(([membershipId, held]) => {
    const membershipType = membershipTypeOf(held.map((r) => r.roleKey));
    types.set(membershipId, membershipType);
    return { membershipId, orgId, membershipType, grants: JSON.stringify([...new Set(held.flatMap((r) => r.grants))]), version: 1, updatedAt: now };
  });
  for (let i = 0; i < access.length; i += 1000) {
    await trx('rbac.member_access').insert(access.slice(i, i + 1000)).onConflict('membership_id').merge({
      membershipType: trx.raw('excluded.membership_type'), grants: trx.raw('excluded.grants'),
      version: trx.raw('rbac.member_access.version + 1'), updatedAt: trx.raw('excluded.updated_at'),
    });
  }
  return types;
}

/**
 * Takes transaction-scoped advisory locks on members' assignment sets, in one sorted order, so two
 * concurrent assignments (single or bulk) cannot both pass the separation-of-duties check and two
 * bulk ones cannot deadlock.
 */
export async function lockMembers(trx: Knex.Transaction, membershipIds: readonly string[]): Promise<void> {
  if (membershipIds.length === 0) return;
  const keys = [...new Set(membershipIds)].sort().map((id) => `rbac.member:${id}`);
  await trx.raw('select count(pg_advisory_xact_lock(hashtext(k))) from unnest(?::text[]) with ordinality as u(k, n)', [keys]);
}

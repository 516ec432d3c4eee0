import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Clock, type Database, type EventBus } from '../../core/index.ts';
import { MembershipModel } from './models/organization.model.ts';
import type { MembershipsService as MembershipsServiceApi } from './service-interfaces.ts';

/** A membership's role in its organization. @see docs/api/members.md */
export type MembershipRole = 'Owner' | 'Admin' | 'Member';
/**
 * `active` members act; `suspended` and `revoked` ones are refused on their next request; `invited`
 * (made by SCIM provisioning for an address that has an Aerie account) waits for the person to
 * accept the invitation with their own account and acts only then.
 */
export type MembershipStatus = 'active' | 'suspended' | 'revoked' | 'invited';

/** A row of `orgs.memberships` as other plugins see it (the spec's `connectedIdId` is `id`). */
export interface MembershipDto {
  id: string;
  orgId: string;
  accountId: string;
  role: MembershipRole;
  status: MembershipStatus;
  createdAt: Date;
  updatedAt: Date;
}

type Db = Knex | Knex.Transaction;

/**
 * `orgs.memberships`: the only way other plugins (members, rbac) read and change `orgs.memberships`.
 * Every method takes the organization id and filters by it, so another organization's membership id
 * is simply not found. Writes take the caller's transaction; reads take one optionally (on embedded
 * PGlite a read outside an open transaction would wait for its single connection).
 * @see docs/api/members.md
 */
@injectable()
export class MembershipsService implements MembershipsServiceApi {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.events.id) private readonly events: EventBus,
  ) {}

  /** The membership `id` of organization `orgId`, or `undefined` (unknown or another organization's). */
  async findById(orgId: string, id: string, trx?: Db): Promise<MembershipDto | undefined> {
    const row = await MembershipModel.query(trx ?? this.db.knex).findOne({ orgId, id });
    return row ? toDto(row) : undefined;
  }

  /** The membership of `accountId` in `orgId` (any status), or `undefined`. */
  async findByAccount(orgId: string, accountId: string, trx?: Db): Promise<MembershipDto | undefined> {
    const row = await MembershipModel.query(trx ?? this.db.knex).findOne({ orgId, accountId });
    return row ? toDto(row) : undefined;
  }

  /** Memberships of `orgId`, oldest first; `statuses` filters (default: all). */
  async list(orgId: string, statuses?: readonly MembershipStatus[], trx?: Db): Promise<MembershipDto[]> {
    const q = MembershipModel.query(trx ?? this.db.knex).where({ orgId }).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
    if (statuses) q.whereIn('status', statuses as MembershipStatus[]);
    return (await q).map(toDto);
  }

  /** Active memberships of `orgId` as a query selecting `account_id`, narrowed to `filter`; it runs inside the caller's statement. */
  activeAccountsQuery(orgId: string, filter: { ids?: readonly string[]; roles?: readonly MembershipRole[] } = {}, trx?: Db): Knex.QueryBuilder {
    const q = MembershipModel.query(trx ?? this.db.knex).select('accountId').where({ orgId, status: 'active' });
    if (filter.ids) q.whereIn('id', filter.ids as string[]);
    if (filter.roles) q.whereIn('role', filter.roles as MembershipRole[]);
    return q.toKnexQuery();
  }

  /**
   * Makes `accountId` an active member with `role`: inserts a membership, or activates a revoked or
   * invited one (same id). @throws Error when the account already has an active or suspended
   * membership (callers check first and answer 409).
   */
  async join(orgId: string, accountId: string, role: MembershipRole, trx: Knex.Transaction): Promise<MembershipDto> {
    return this.enter(orgId, accountId, role, 'active', trx);
  }

  /**
   * Records `accountId` as `invited` (SCIM provisioning of an Aerie account's address): inserts a
   * membership, or turns a revoked one (same id) into it. It acts only once {@link join}ed.
   * @throws Error when the account already has a membership that is not revoked (callers check first).
   */
  async invite(orgId: string, accountId: string, trx: Knex.Transaction): Promise<MembershipDto> {
    return this.enter(orgId, accountId, 'Member', 'invited', trx);
  }

  private async enter(orgId: string, accountId: string, role: MembershipRole, status: 'active' | 'invited', trx: Knex.Transaction): Promise<MembershipDto> {
    const now = this.clock.now();
    const existing = await MembershipModel.query(trx).findOne({ orgId, accountId }).forUpdate();
    let row: MembershipModel;
    if (!existing) {
      row = await MembershipModel.query(trx).insertAndFetch({ id: randomUUID(), orgId, accountId, role, status, createdAt: now, updatedAt: now });
    } else if (existing.status === 'revoked' || (existing.status === 'invited' && status === 'active')) {
      // An invited membership keeps the role it was given meanwhile (SCIM never sets Owner or Admin).
      row = await existing.$query(trx).patchAndFetch({ role: existing.status === 'invited' ? existing.role : role, status, updatedAt: now });
    } else {
      throw new Error(`account ${accountId} already has a ${existing.status} membership in ${orgId}`);
    }
    this.changed(orgId, accountId);
    return toDto(row);
  }

  /** Sets the status of a membership of `orgId`. @returns the updated membership, or `undefined` when not found. */
  async setStatus(orgId: string, id: string, status: MembershipStatus, trx: Knex.Transaction): Promise<MembershipDto | undefined> {
    return this.patch(orgId, id, { status }, trx);
  }

  /** Sets the role of a membership of `orgId`. @returns the updated membership, or `undefined` when not found. */
  async setRole(orgId: string, id: string, role: MembershipRole, trx: Knex.Transaction): Promise<MembershipDto | undefined> {
    return this.patch(orgId, id, { role }, trx);
  }

  /** Deletes a membership of `orgId`. @returns the deleted membership, or `undefined` when not found. */
  async remove(orgId: string, id: string, trx: Knex.Transaction): Promise<MembershipDto | undefined> {
    const row = await MembershipModel.query(trx).findOne({ orgId, id }).forUpdate();
    if (!row) return undefined;
    await MembershipModel.query(trx).delete().where({ orgId, id });
    this.changed(orgId, row.accountId);
    return toDto(row);
  }

  private async patch(orgId: string, id: string, patch: Partial<Pick<MembershipModel, 'role' | 'status'>>, trx: Knex.Transaction): Promise<MembershipDto | undefined> {
    const row = await MembershipModel.query(trx).findOne({ orgId, id }).forUpdate();
    if (!row) return undefined;
    const updated = await row.$query(trx).patchAndFetch({ ...patch, updatedAt: this.clock.now() });
    this.changed(orgId, row.accountId);
    return toDto(updated);
  }

  // `/me` caches an account's organizations; a spurious invalidation (rolled-back change) is harmless.
  private changed(orgId: string, accountId: string): void {
    this.events.emit({ type: 'org.membership.changed', orgId, payload: { orgId, accountId } });
  }
}

function toDto(row: MembershipModel): MembershipDto {
  return { id: row.id, orgId: row.orgId, accountId: row.accountId, role: row.role, status: row.status, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

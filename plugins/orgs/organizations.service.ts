import { randomUUID } from 'node:crypto';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database, type EventBus, type Principal } from '../../core/index.ts';
import { MembershipModel, OrganizationModel, type OrgType } from './models/organization.model.ts';
import { orgsErrors } from './errors.ts';
import { orgsExtensions, type CreatedOrg, type MembershipRole, type OrgDto, type OrgsContext } from './api.ts';
import { internalRefs, type OrgsConfig } from './internal-refs.ts';
import type { PlanKey } from './plans.ts';
import type { OrganizationsService as OrganizationsServiceApi } from './service-interfaces.ts';

/** Slugs that would collide with fixed `/api/org/…` routes. */
export const RESERVED_SLUGS = new Set(['create', 'invitation', 'representative', 'otp', 'api', 'admin', 'settings', 'new', 'me', 'public']);

type CreateHook = (org: CreatedOrg, trx: import('knex').Knex.Transaction) => Promise<void>;
type ReadinessCheck = (org: { id: string; ownerAccountId: string }) => Promise<boolean>;

/** `orgs.organizations`: creating organizations and resolving them for requests. */
@injectable()
export class OrganizationsService implements OrganizationsServiceApi {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(internalRefs.config.id) private readonly config: OrgsConfig,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.events.id) private readonly events: EventBus,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(orgsExtensions.onCreate.id) private readonly createHooks: readonly CreateHook[],
    @inject(orgsExtensions.readiness.id) private readonly readinessChecks: readonly ReadinessCheck[],
  ) {}

  /**
   * Creates an organization on the default plan with the creator as active `Owner`, running the
   * creation hooks in the same transaction; `org.created` is the first record of its audit chain.
   * @throws 400 `SLUG_RESERVED`, 409 `SLUG_TAKEN`.
   */
  async create(accountId: string, input: { name: string; slug: string; type: OrgType }): Promise<OrgDto> {
    if (RESERVED_SLUGS.has(input.slug)) throw orgsErrors.slugReserved(input.slug);
    const now = this.clock.now();
    const org = await this.db.transaction(async (trx) => {
      const taken = await OrganizationModel.query(trx).findOne({ slug: input.slug });
      if (taken) throw orgsErrors.slugTaken(input.slug);
      const row = await OrganizationModel.query(trx).insertAndFetch({
        id: randomUUID(), slug: input.slug, name: input.name, type: input.type, planKey: this.config.billing.defaultPlan,
        createdBy: accountId, createdAt: now, updatedAt: now,
      });
      await MembershipModel.query(trx).insert({ id: randomUUID(), orgId: row.id, accountId, role: 'Owner', status: 'active', createdAt: now, updatedAt: now });
      await this.audit.append(trx, {
        orgId: row.id, eventType: 'org.created', actor: { type: 'account', id: accountId },
        businessData: { slug: row.slug, name: row.name, type: row.type, planKey: row.planKey },
      });
      for (const hook of this.createHooks) await hook({ id: row.id, slug: row.slug, name: row.name, type: row.type, ownerAccountId: accountId }, trx);
      return row;
    }).catch((err: { code?: string; nativeError?: { code?: string } }) => {
      // Two creations racing for one slug: the unique index decides.
      if ((err.nativeError?.code ?? err.code) === '23505') throw orgsErrors.slugTaken(input.slug);
      throw err;
    });
    this.events.emit({ type: 'org.created', orgId: org.id, payload: { orgId: org.id, accountId } });
    this.events.emit({ type: 'org.membership.changed', orgId: org.id, payload: { orgId: org.id, accountId } });
    return this.toDto(org);
  }

  /** The organization with this slug, or `undefined`. */
  async findBySlug(slug: string): Promise<OrganizationModel | undefined> {
    return OrganizationModel.query(this.db.knex).findOne({ slug: slug.toLowerCase() });
  }

  /** The organization with this id, or `undefined`. */
  async findById(id: string): Promise<OrganizationModel | undefined> {
    return OrganizationModel.query(this.db.knex).findById(id);
  }

  /**
   * The request context for `{slug}`: the caller's active membership for accounts, or the bound
   * organization for org-bound credentials; `null` when neither (the route answers 404).
   */
  async resolveContext(slug: string, principal: Principal | null): Promise<OrgsContext | null> {
    if (!principal) return null;
    const org = await this.findBySlug(slug);
    if (!org) return null;
    const ctxOrg = { id: org.id, slug: org.slug, name: org.name, type: org.type, planKey: org.planKey as PlanKey };
    if (principal.orgId) return principal.orgId === org.id ? { organization: ctxOrg } : null;
    // An organization session reaches its own organization only.
    if (principal.sessionOrgId && principal.sessionOrgId !== org.id) return null;
    if (!principal.accountId) return null;
    const member = await MembershipModel.query(this.db.knex).findOne({ orgId: org.id, accountId: principal.accountId, status: 'active' });
    return member ? { organization: ctxOrg, membership: { id: member.id, role: member.role as MembershipRole } } : null;
  }

  /** Active organizations of an account with its role, oldest first; `role` narrows to memberships with that role (in the query). */
  async listForAccount(accountId: string, role?: string): Promise<Array<OrgDto & { role: string }>> {
    const rows = await OrganizationModel.query(this.db.knex)
      .join('orgs.memberships as m', 'm.orgId', 'orgs.organizations.id')
      .where('m.accountId', accountId).where('m.status', 'active')
      .modify((q) => (role ? q.where('m.role', role) : q))
      .select('orgs.organizations.*', 'm.role').orderBy('orgs.organizations.createdAt');
    return Promise.all(rows.map(async (r) => ({ ...(await this.toDto(r)), role: (r as unknown as { role: string }).role })));
  }

  /** Sets the plan (platform admins). @throws nothing; answers `undefined` for an unknown slug. */
  async setPlan(slug: string, planKey: PlanKey): Promise<OrganizationModel | undefined> {
    const org = await this.findBySlug(slug);
    if (!org) return undefined;
    const updated = await org.$query(this.db.knex).patchAndFetch({ planKey, updatedAt: this.clock.now() });
    this.events.emit({ type: 'org.plan.changed', orgId: org.id, payload: { orgId: org.id, from: org.planKey, to: planKey } });
    return updated;
  }

  async setPlatformPartner(slug: string, platformPartner: boolean, byAccountId: string): Promise<OrganizationModel | undefined> {
    return this.db.transaction(async (trx) => {
      const org = await OrganizationModel.query(trx).where({ slug }).forUpdate().first();
      if (!org) return undefined;
      if (org.platformPartner === platformPartner) return org;
      const updated = await org.$query(trx).patchAndFetch({ platformPartner, updatedAt: this.clock.now() });
      await this.audit.append(trx, { orgId: org.id, eventType: 'org.platform_partner.changed', businessData: { platformPartner, byPlatformAdmin: byAccountId } });
      return updated;
    });
  }

  /** The public DTO, with `ready` from the registered readiness checks. */
  async toDto(org: OrganizationModel): Promise<OrgDto> {
    let ready = this.readinessChecks.length > 0;
    for (const check of this.readinessChecks) {
      if (!ready) break;
      ready = await check({ id: org.id, ownerAccountId: org.createdBy });
    }
    return { id: org.id, name: org.name, slug: org.slug, ready, type: org.type, planKey: org.planKey, createdAt: new Date(org.createdAt).toISOString() };
  }
}

import { coreRefs, inject, injectable, type Clock, type Database, type EventBus } from '../../core/index.ts';
import { OrganizationModel, type OrgType } from './models/organization.model.ts';
import { orgsRefs } from './api.ts';
import type { MasterSealsService, MasterSealDto } from './master-seals.service.ts';
import { orgsErrors } from './errors.ts';
import type { OrgTypeService as OrgTypeServiceApi } from './service-interfaces.ts';

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
@injectable()
export class OrgTypeService implements OrgTypeServiceApi {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.events.id) private readonly events: EventBus,
    @inject(orgsRefs.masterSeals.id) private readonly masterSeals: MasterSealsService,
  ) {}

  /** @throws 409 `TYPE_CHANGE_NOT_ALLOWED` */
  async change(orgId: string, byAccountId: string, input: { type: OrgType; masterSeal?: boolean }): Promise<{ org: OrganizationModel; masterSeal: MasterSealDto | null }> {
    const result = await this.db.transaction(async (trx) => {
      const org = await OrganizationModel.query(trx).findById(orgId).forUpdate();
      if (!org) throw new Error(`organization ${orgId} vanished`);
      if (org.type === 'Corporation' && input.type !== 'Corporation') throw orgsErrors.typeChangeNotAllowed(org.type, input.type);
      const from = org.type;
      const updated = from === input.type ? org : await org.$query(trx).patchAndFetch({ type: input.type, updatedAt: this.clock.now() });
      const masterSeal = input.type === 'Corporation' || input.masterSeal
        ? await this.masterSeals.issue(orgId, byAccountId, trx)
        : await this.masterSeals.get(orgId, trx);
      return { org: updated, masterSeal, from };
    });
    if (result.from !== result.org.type) {
      this.events.emit({ type: 'org.type.changed', orgId, payload: { orgId, from: result.from, to: result.org.type, accountId: byAccountId } });
    }
    return { org: result.org, masterSeal: result.masterSeal };
  }
}

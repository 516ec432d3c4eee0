import { coreRefs, inject, injectable, type Database } from '../../core/index.ts';
import { AddonModel, OrganizationModel } from './models/organization.model.ts';
import { FEATURE_MIN_PLAN, RETENTION_DAYS, planAtLeast, type PlanKey } from './plans.ts';
import type { EntitlementsService as EntitlementsServiceApi } from './service-interfaces.ts';

/**
 * `orgs.entitlements`: what an organization's plan and add-ons allow. Other plugins ask it
 * (`hasFeature(orgId, 'feature.audit.view_all')`) instead of reading plans themselves.
 */
@injectable()
export class EntitlementsService implements EntitlementsServiceApi {
  constructor(@inject(coreRefs.db.id) private readonly db: Database) {}

  /** The organization's plan. @throws Error for an unknown organization id. */
  async planOf(orgId: string): Promise<PlanKey> {
    const org = await OrganizationModel.query(this.db.knex).findById(orgId).select('planKey');
    if (!org) throw new Error(`unknown organization ${orgId}`);
    return org.planKey as PlanKey;
  }

  /** true when the plan includes `feature` (unknown feature keys are never included). */
  async hasFeature(orgId: string, feature: string): Promise<boolean> {
    const min = FEATURE_MIN_PLAN[feature];
    return min !== undefined && planAtLeast(await this.planOf(orgId), min);
  }

  /** true when the add-on is enabled for the organization. */
  async hasAddon(orgId: string, addon: string): Promise<boolean> {
    return (await AddonModel.query(this.db.knex).findById([orgId, addon])) !== undefined;
  }

  /** Audit query retention in days for the organization's plan; `null` = unlimited. */
  async retentionDays(orgId: string): Promise<number | null> {
    return RETENTION_DAYS[await this.planOf(orgId)];
  }
}

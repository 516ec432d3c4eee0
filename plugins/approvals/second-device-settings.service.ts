import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { approvalsErrors } from './errors.ts';

/** The keys the approvals plugin owns in the configuration (`config.schema.json`), validated. */
export interface ApprovalsConfig {
  /** Where the global rollout of rule 7 stands: `notice` (stamps recorded, clients told) or `required`. */
  approvals: { secondDevicePhase: 'notice' | 'required' };
}

/** How a stamp in an organization is treated: setting off, notice phase, or confirmation required. */
export type SecondDeviceMode = 'off' | 'notice' | 'required';

/** The answer of `GET|PUT /api/org/{slug}/approvals/settings`. */
export interface ApprovalSettingsDto { secondDeviceConfirmation: boolean; secondDevicePhase: 'notice' | 'required'; updatedAt: string | null }

/**
 * `approvals.secondDeviceSettings`: the per-organization switch of rule 7 (on by default: no row
 * means on) and the global rollout phase from the configuration. Only the Owner turns it off; the
 * Owner or an Admin may turn it on; each change is audited as `approval.settings.changed`.
 * @see spec 02 "Approvals" rule 7; docs/api/approvals.md "Second-device confirmation"
 */
@injectable()
export class SecondDeviceSettingsService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject('approvals.config') private readonly config: ApprovalsConfig,
  ) {}

  /** The organization's settings with the global phase. */
  async get(orgId: string): Promise<ApprovalSettingsDto> {
    const row = (await this.db.knex('approvals.settings').where({ orgId }).first()) as { secondDeviceConfirmation: boolean; updatedAt: Date } | undefined;
    return {
      secondDeviceConfirmation: row?.secondDeviceConfirmation ?? true, secondDevicePhase: this.config.approvals.secondDevicePhase,
      updatedAt: row ? new Date(row.updatedAt).toISOString() : null,
    };
  }

  /** How stamps in `orgId` are treated now. */
  async mode(orgId: string): Promise<SecondDeviceMode> {
    const { secondDeviceConfirmation, secondDevicePhase } = await this.get(orgId);
    return secondDeviceConfirmation ? secondDevicePhase : 'off';
  }

  /**
   * Turns second-device confirmation on or off; a change is audited (an unchanged value is not).
   * @throws 403 `PERMISSION_DENIED` when anyone but the Owner turns it off
   */
  async set(orgId: string, by: { accountId: string; role: string }, secondDeviceConfirmation: boolean): Promise<ApprovalSettingsDto> {
    if (!secondDeviceConfirmation && by.role !== 'Owner') throw approvalsErrors.ownerOnlyTurnsOff();
    await this.db.knex.transaction(async (trx) => {
      const row = (await trx('approvals.settings').where({ orgId }).forUpdate().first()) as { secondDeviceConfirmation: boolean } | undefined;
      const previous = row?.secondDeviceConfirmation ?? true;
      if (row && previous === secondDeviceConfirmation) return;
      const now = this.clock.now();
      await trx('approvals.settings').insert({ orgId, secondDeviceConfirmation, updatedBy: by.accountId, updatedAt: now })
        .onConflict('orgId').merge(['secondDeviceConfirmation', 'updatedBy', 'updatedAt']);
      if (previous !== secondDeviceConfirmation) {
        await this.audit.append(trx, { orgId, eventType: 'approval.settings.changed', businessData: { setting: 'secondDeviceConfirmation', from: previous, to: secondDeviceConfirmation } });
      }
    });
    return this.get(orgId);
  }
}

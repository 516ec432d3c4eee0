import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { SETTINGS_TABLE } from './tables.ts';
import type { NotificationCategory } from './service-interfaces.ts';

/** An organization's notification settings. @see docs/api/notifications.md "Organization settings" */
export interface NotificationSettings {
  /** Categories whose notifications are also mailed to their recipients. */
  emailCategories: NotificationCategory[];
  /** `off`: each mail on its own; `daily` / `weekly`: one summary mail per period. */
  digest: 'off' | 'daily' | 'weekly';
}

/** What an organization that saved nothing has. */
export const DEFAULT_SETTINGS: NotificationSettings = { emailCategories: ['Org'], digest: 'off' };

/** `/api/org/{slug}/settings/notifications`: read and replace; a change is audited in its transaction. */
@injectable()
export class SettingsService {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.db.id) private readonly db: Database,
  ) {}

  async get(orgId: string): Promise<NotificationSettings> {
    const row = await this.db.knex<NotificationSettings & { orgId: string }>(SETTINGS_TABLE).where({ orgId }).first('emailCategories', 'digest');
    return row ? { emailCategories: row.emailCategories, digest: row.digest } : DEFAULT_SETTINGS;
  }

  async put(orgId: string, updatedBy: string | null, input: NotificationSettings): Promise<NotificationSettings> {
    const settings: NotificationSettings = { emailCategories: [...new Set(input.emailCategories)], digest: input.digest };
    await this.db.transaction(async (trx) => {
      await trx(SETTINGS_TABLE).insert({ orgId, emailCategories: JSON.stringify(settings.emailCategories), digest: settings.digest, updatedBy, updatedAt: this.clock.now() } as never)
        .onConflict('org_id').merge();
      await this.audit.append(trx, { orgId, eventType: 'org.notification.settings_updated', businessData: { ...settings } });
    });
    return settings;
  }
}

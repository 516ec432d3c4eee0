import type { AuditService, Clock, Database } from '../../core/index.ts';

/**
 * Each app group's event-collection switch (`analytics.app_group_settings`; no row: on). With
 * collection off, the hot end-user store records none of the app group's sign-ins, failed
 * attempts or signups, no rollup is built for it, and `/analytics` reports zeros for it. Its
 * events are still sealed on the organization's chain and counted in the organization's figures
 * of days already rolled up. @see docs/api/audit-analytics.md "Event collection"
 */
export class EventCollection {
  constructor(private readonly db: Database, private readonly audit: AuditService, private readonly clock: Clock) {}

  /** The app groups of `orgId` whose collection is off. */
  async disabled(orgId: string): Promise<Set<string>> {
    const rows: Array<{ appGroupId: string }> = await this.db.knex('analytics.app_group_settings').where({ orgId, eventsEnabled: false }).select('appGroupId');
    return new Set(rows.map((r) => r.appGroupId));
  }

  /**
   * Turns collection on or off, audited `org.app_group.events_collection_changed`
   * `{appGroupId, enabled}` in the same transaction when it changes.
   * @returns whether it changed.
   */
  async set(orgId: string, appGroupId: string, enabled: boolean): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const current = await trx('analytics.app_group_settings').where({ orgId, appGroupId }).forUpdate().first();
      if ((current?.eventsEnabled ?? true) === enabled) return false;
      await trx('analytics.app_group_settings').insert({ orgId, appGroupId, eventsEnabled: enabled, updatedAt: this.clock.now() })
        .onConflict(['orgId', 'appGroupId']).merge(['eventsEnabled', 'updatedAt']);
      await this.audit.append(trx, { orgId, eventType: 'org.app_group.events_collection_changed', appGroupId, businessData: { appGroupId, enabled } });
      return true;
    });
  }
}

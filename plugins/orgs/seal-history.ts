import type { Subscription } from 'rxjs';
import type { Logger } from 'pino';
import type { AuditService, Database, EventBus } from '../../core/index.ts';
import type { OrganizationsService } from './service-interfaces.ts';

/**
 * Copies an account's passkey lifecycle (`seal.lifecycle.registered` / `.revoked`) into the audit
 * chain of every organization the account is an active member of, so it shows in the
 * organization's change history (filterable with `eventTypes=`). Runs after the account's change
 * committed (from the event bus); the account activity log is the transactional record.
 * @see docs/audit.md
 */
export function recordSealLifecycle(deps: { events: EventBus; db: Database; audit: AuditService; organizations: OrganizationsService; logger: Logger }): Subscription {
  return deps.events.on('seal.lifecycle.*').subscribe((event) => {
    const { accountId, keyId, keyFingerprint } = event.payload as { accountId: string; keyId: string; keyFingerprint: string };
    void (async () => {
      const orgs = await deps.organizations.listForAccount(accountId);
      if (orgs.length === 0) return;
      await deps.db.transaction((trx) =>
        deps.audit.appendMany(trx, orgs.map((org) => ({
          orgId: org.id, eventType: event.type, actor: { type: 'account' as const, id: accountId }, businessData: { keyId, keyFingerprint },
        }))),
      );
    })().catch((err) => deps.logger.error({ err, event: event.type }, 'could not record the seal lifecycle on organization audit chains'));
  });
}

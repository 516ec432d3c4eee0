import { TestAerie } from '../../helpers/harness.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';

/**
 * A kernel (accounts, orgs) whose background sealer is stopped, so the outbox holds exactly what a
 * test appends until the test seals it with a sealer of its own.
 */
export async function startQuietAudit(): Promise<{ aerie: TestAerie; audit: AuditService }> {
  const aerie = await TestAerie.start({ plugins: ['accounts', 'orgs'] });
  await aerie.kernel.auditSealer.stop();
  return { aerie, audit: aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id) };
}

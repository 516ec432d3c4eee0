import type { PluginContext } from '../../core/index.ts';
import type { PersonalSealsService } from '../accounts/api.ts';
import { orgsExtensions } from './api.ts';
import type { MasterSealsService } from './service-interfaces.ts';

/**
 * Wires the Org Master Seal into organization creation and `ready`:
 * - a `Corporation` gets its master seal inside the creation transaction (a failure aborts creation);
 * - `ready` = master seal present AND the owner's personal seal bound (two readiness checks).
 * @see docs/api/public-v1.md, docs/api/members.md
 */
export function contributeMasterSealReadiness(ctx: PluginContext, masterSeals: MasterSealsService, personalSeals: PersonalSealsService): void {
  ctx.extend(orgsExtensions.onCreate, async (org, trx) => {
    if (org.type === 'Corporation') await masterSeals.issue(org.id, org.ownerAccountId, trx);
  });
  ctx.extend(orgsExtensions.readiness, (org) => masterSeals.has(org.id));
  ctx.extend(orgsExtensions.readiness, (org) => personalSeals.hasPersonalSeal(org.ownerAccountId));
}

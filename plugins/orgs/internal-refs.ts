/**
 * Service refs private to the orgs plugin (other plugins use `api.ts`). Kept apart from `index.ts`
 * so services can name them in `@inject` without an import cycle.
 */
import { createServiceRef } from '../../core/index.ts';
import type { PlanKey } from './plans.ts';

/** The keys the orgs plugin owns in the configuration (`config.schema.json`), validated. */
export interface OrgsConfig {
  /** The plan a new organization starts on (`AERIE_DEFAULT_PLAN`). */
  billing: { defaultPlan: PlanKey };
}

export const internalRefs = {
  /** Registered by the kernel from the plugin's validated configuration keys. */
  config: createServiceRef<OrgsConfig>('orgs.config'),
};

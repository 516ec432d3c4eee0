import { createServiceRef } from '../../core/index.ts';
import type { ActivityProjector } from './activity-projector.ts';
import type { RollupBuilder } from './rollups.ts';

export type { DayRollup, OrgDayRollups } from './day-rollup.ts';
export type { RollupReport } from './rollups.ts';
export type { ActivityProjector } from './activity-projector.ts';

/** Services of the `analytics` plugin. */
export const analyticsRefs = {
  /** Builds rollups from day files (the nightly job's work; commands and tests call it directly). */
  rollups: createServiceRef<RollupBuilder>('analytics.rollups'),
  /** The hot end-user store's projector (`drain()` projects everything sealed so far). */
  activity: createServiceRef<ActivityProjector>('analytics.activity'),
};

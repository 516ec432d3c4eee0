import { createServiceRef } from '../../core/index.ts';
import type { RollupReport } from './rollups.ts';

export type { DayRollup, OrgDayRollups } from './day-rollup.ts';
export type { RollupReport } from './rollups.ts';

/** The rollups built from the audit day files. @see docs/api/audit-analytics.md "Rollups" */
export interface Rollups {
  /** Rolls up every day file of the last 90 days that has no rollup yet (the nightly schedule's work); a day that failed is listed, the others go on. */
  buildPending(): Promise<RollupReport>;
}

/** The hot end-user store, fed from the sealed chains. @see docs/api/audit-analytics.md */
export interface EndUserActivity {
  /** Projects everything sealed so far (tests and commands; the plugin follows the chains on its own). */
  drain(): Promise<void>;
  /** Stops following the chains (waits for the pass in progress). */
  stop(): Promise<void>;
}

/** Services of the `analytics` plugin. */
export const analyticsRefs = {
  /** Builds rollups from day files (the nightly schedule's work; commands and tests call it directly). */
  rollups: createServiceRef<Rollups>('analytics.rollups'),
  /** The hot end-user store's projector (`drain()` projects everything sealed so far). */
  activity: createServiceRef<EndUserActivity>('analytics.activity'),
};

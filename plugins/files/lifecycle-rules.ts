import type { PlanKey } from '../orgs/api.ts';
import { filesErrors } from './errors.ts';

/** At most this many lifecycle rules per organization. */
export const MAX_RULES = 10;
/** The Pro+ preset: `transition_ia` of all files not accessed for 90 days. */
export const PRESET_DAYS = 90;
export const MIN_DAYS = 30;
export const MAX_DAYS = 3650;

export type LifecycleAction = 'transition_ia' | 'trash';

/** The conditions of a rule: what it does, after how many days without access, to which files (null: all). */
export interface RuleConditions {
  action: LifecycleAction;
  unaccessedDays: number;
  scope: string | null;
}

/** What a plan lets an organization do with lifecycle rules. @see docs/api/files.md "Lifecycle rules" */
export interface LifecyclePlan {
  /** Any rule at all (Pro+ and up). */
  lifecycle: boolean;
  /** Rules other than the preset (Business and Enterprise). */
  canCustomize: boolean;
  /** `trash` rules (Business and Enterprise). */
  canTrash: boolean;
}

/** Free and Pro: none; Pro+: the preset only; Business and Enterprise: any rule. */
export function lifecyclePlan(plan: PlanKey): LifecyclePlan {
  const custom = plan === 'Business' || plan === 'Enterprise';
  return { lifecycle: custom || plan === 'ProPlus', canCustomize: custom, canTrash: custom };
}

const SCOPE = /^(free|notification|project:[A-Za-z0-9_-]{1,64})$/;

/**
 * A rule body's conditions, checked in the order the spec lists the codes.
 * @throws 400 `invalid_action`, `invalid_days` (an integer 30–3650), `invalid_scope` (omitted or null
 *   for all files, `free`, `notification`, `project:{id}`)
 */
export function parseConditions(body: { action?: unknown; unaccessedDays?: unknown; scope?: unknown }): RuleConditions {
  const { action, unaccessedDays: days, scope } = body;
  if (action !== 'transition_ia' && action !== 'trash') throw filesErrors.invalidAction();
  if (typeof days !== 'number' || !Number.isInteger(days) || days < MIN_DAYS || days > MAX_DAYS) throw filesErrors.invalidDays();
  if (scope !== undefined && scope !== null && (typeof scope !== 'string' || !SCOPE.test(scope))) throw filesErrors.invalidScope();
  return { action, unaccessedDays: days, scope: (scope as string | null | undefined) ?? null };
}

/** true when the preset: `transition_ia`, 90 days, all files. */
export function isPreset(rule: RuleConditions): boolean {
  return rule.action === 'transition_ia' && rule.unaccessedDays === PRESET_DAYS && rule.scope === null;
}

/** Whether the plan lets this rule run (a rule kept after a downgrade may not: `planAllows: false`). */
export function planAllows(plan: LifecyclePlan, rule: RuleConditions): boolean {
  if (!plan.lifecycle) return false;
  if (plan.canCustomize) return rule.action !== 'trash' || plan.canTrash;
  return isPreset(rule);
}

/**
 * Refuses a rule the plan does not allow.
 * @throws 403 `plan_upgrade_required` with `feature` `lifecycle` (no lifecycle on the plan) or `lifecycle_custom` (not the preset)
 */
export function assertPlanAllows(plan: LifecyclePlan, rule: RuleConditions): void {
  if (!plan.lifecycle) throw filesErrors.planUpgradeRequired('lifecycle');
  if (!planAllows(plan, rule)) throw filesErrors.planUpgradeRequired('lifecycle_custom');
}

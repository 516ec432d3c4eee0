/** Plan keys, lowest first. @see docs/audit.md (retention by plan) */
export const PLAN_KEYS = ['Free', 'Pro', 'ProPlus', 'Business', 'Enterprise'] as const;
/** One of {@link PLAN_KEYS}. */
export type PlanKey = (typeof PLAN_KEYS)[number];

/**
 * Plan features: each feature key and the lowest plan that includes it. Plans are ordered
 * Free < Pro < ProPlus < Business < Enterprise; a plan includes every feature of the plans below it.
 * @see docs/audit.md, docs/api/orgs.md; documented in docs/api/orgs.md
 */
export const FEATURE_MIN_PLAN: Readonly<Record<string, PlanKey>> = {
  'feature.audit.view_all': 'Pro',
  'feature.audit.archive': 'Pro',
  'feature.audit.analytics_addon': 'Pro',
  'feature.device.hybrid': 'Business',
  'feature.scim': 'Business',
  'feature.idp.federation': 'Business',
};

/** Add-ons sold on top of a plan. */
export const ADDON_KEYS = ['addon.device_trust', 'addon.audit_analytics'] as const;
export type AddonKey = (typeof ADDON_KEYS)[number];

/** Audit query retention by plan, in days; `null` = unlimited (Enterprise, per contract). */
export const RETENTION_DAYS: Readonly<Record<PlanKey, number | null>> = {
  Free: 1,
  Pro: 7,
  ProPlus: 30,
  Business: 90,
  Enterprise: null,
};

/** true when `plan` is `min` or higher. */
export function planAtLeast(plan: PlanKey, min: PlanKey): boolean {
  return PLAN_KEYS.indexOf(plan) >= PLAN_KEYS.indexOf(min);
}

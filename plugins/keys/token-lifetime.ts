/** Default machine-token lifetime and key ceiling, in seconds. @see docs/api/keys.md */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 300;
/** Shortest issued lifetime. */
export const MIN_TOKEN_LIFETIME_SECONDS = 60;
/** Longest ceiling and lifetime (7 days). */
export const MAX_TOKEN_LIFETIME_SECONDS = 604_800;

/**
 * The issued machine-token lifetime: `min(lifetimeSeconds, key ceiling, 604800)` floored at 60, where
 * an omitted `lifetimeSeconds` counts as 300 (so it never reaches a higher ceiling) and a key without
 * a ceiling has the default ceiling 300. For a ceiling below 300 an omitted lifetime gives the ceiling.
 *
 * | lifetimeSeconds | ceiling | issued |
 * |---|---|---|
 * | omitted | any ≥ 300 | 300 |
 * | 86400 | none | 300 |
 * | 86400 | 86400 | 86400 |
 * | 604800 | 86400 | 86400 |
 * | 30 | any | 60 |
 *
 * @param lifetimeSeconds requested lifetime, or `undefined`
 * @param ceiling the key's `maxTokenLifetimeSeconds`, or `null` for none
 * @returns seconds
 * @example issuedLifetime(604800, 86400) // 86400
 * @see docs/api/keys.md
 */
export function issuedLifetime(lifetimeSeconds: number | undefined, ceiling: number | null): number {
  const requested = lifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  const cap = ceiling ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  return Math.max(MIN_TOKEN_LIFETIME_SECONDS, Math.min(requested, cap, MAX_TOKEN_LIFETIME_SECONDS));
}

/**
 * How long a revocation marker is kept: the key's ceiling (default 300) plus one hour, so it outlives
 * every token the key could have issued.
 * @see docs/api/keys.md
 */
export function revocationMarkerSeconds(ceiling: number | null): number {
  return (ceiling ?? DEFAULT_TOKEN_LIFETIME_SECONDS) + 3600;
}

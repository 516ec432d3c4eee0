/** How long `GET /api/v1/users/me` answers are reused (seconds). @see docs/api/accounts.md */
export const ME_CACHE_SECONDS = 300;
const MAX_ENTRIES = 10_000;

/**
 * A per-account cache of `/me` answers: kept 5 minutes, dropped at once when the account or its
 * memberships change (events), bypassed by the `_t` query parameter.
 */
export class MeCache {
  private readonly entries = new Map<string, { until: number; value: Record<string, unknown> }>();

  get(accountId: string, now: number): Record<string, unknown> | undefined {
    const hit = this.entries.get(accountId);
    if (!hit) return undefined;
    if (hit.until <= now) {
      this.entries.delete(accountId);
      return undefined;
    }
    return hit.value;
  }

  set(accountId: string, value: Record<string, unknown>, now: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(accountId, { until: now + ME_CACHE_SECONDS * 1000, value });
  }

  invalidate(accountId: string): void {
    this.entries.delete(accountId);
  }
}

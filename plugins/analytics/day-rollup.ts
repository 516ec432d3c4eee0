/**
 * Daily rollups: what one organization's sealed audit records of one UTC day add up to, per
 * organization and per app group. A pure function over plain records (no clock, no I/O) run by the
 * rollup task (`./rollup-day.task.ts`, on core.workers) over a day file; the country of an IP comes from the
 * `countryOf` function the worker passes (an offline database). IPs are never part of a rollup.
 *
 * Events counted (the catalogue in docs/api/audit-analytics.md):
 * - `org.end_user.signed_in` `{endUserId, appGroupId, method, provider?}` — a login; the provider
 *   is `method` (`passkey`, `email_code`, `aerie_account`), or `provider` for `social` ones.
 * - `org.end_user.sign_in_failed` `{appGroupId, method, reason, endUserId?, email?}` — a failed
 *   attempt, unknown accounts included.
 * - `org.end_user.created` with `businessData.via` `self_signup` — a signup.
 * - `behavior.page_view` `{path, referrer?, utmSource?, dwellMs?, visitorId?, endUserId?, ip?}` —
 *   ingested by applications (`POST /api/public/v1/audit/events`).
 * - every record — `eventTypes` (all sealed: a day file holds sealed records only).
 * The three `org.end_user.*` events count only when the platform wrote them (an actor other than
 * an API key): ingestion accepts any event type, and a key must not forge sign-in figures.
 *
 * @see docs/api/audit-analytics.md "Rollups"
 */
import type { SealedAuditRecord } from '../../core/index.ts';

/** Version of the rollup body this module writes. */
export const ROLLUP_VERSION = 1;
/** Most entries kept per breakdown (pages, referrers, campaigns, event types); the rest add to `other`. */
export const TOP_ENTRIES = 200;

/** A count per key, the largest {@link TOP_ENTRIES} kept; `other` sums the rest. */
export type Counts = Record<string, number>;

/**
 * One day's rollup, of a whole organization or of one app group.
 *
 * Shape: `{ version: 1, day: 'YYYY-MM-DD', totalEvents, eventTypes: Counts,
 *   signIn: { logins, failures, signups, activeUsers, failureReasons: Counts, providers: Counts,
 *     byAppGroup: Counts (logins per app group id), users: Counts (logins per end-user id, the day's largest) },
 *   behavior: { pageViews, dwellMs (sum, milliseconds), visitors, identifiedUsers,
 *     pages: Record<path, {views, dwellMs}>, referrers: Counts (host), campaigns: Counts (utmSource), countries: Counts (ISO 3166-1 alpha-2, page views) } }`.
 * `activeUsers`, `visitors` and `identifiedUsers` are distinct counts within the day: summed over
 * several days they are upper bounds.
 * @see docs/api/audit-analytics.md
 */
export interface DayRollup {
  version: typeof ROLLUP_VERSION;
  day: string;
  totalEvents: number;
  eventTypes: Counts;
  signIn: { logins: number; failures: number; signups: number; activeUsers: number; failureReasons: Counts; providers: Counts; byAppGroup: Counts; users: Counts };
  behavior: {
    pageViews: number; dwellMs: number; visitors: number; identifiedUsers: number;
    pages: Record<string, { views: number; dwellMs: number }>; referrers: Counts; campaigns: Counts; countries: Counts;
  };
}

/** The rollups of one organization's day: `org` over every record, `appGroups` per app group id. */
export interface OrgDayRollups {
  org: DayRollup;
  appGroups: Record<string, DayRollup>;
}

/** Country of an IP address (ISO 3166-1 alpha-2), or undefined when unknown or not an address. */
export type CountryOf = (ip: string) => string | undefined;

/** Longest text kept as a breakdown key (paths, referrer hosts, campaign names, reasons). */
const MAX_KEY = 200;
/** Largest dwell time one page view adds (24 hours, milliseconds): a bogus figure cannot swamp a day. */
const MAX_DWELL_MS = 86_400_000;

class Accumulator {
  totalEvents = 0;
  readonly eventTypes = new Map<string, number>();
  logins = 0;
  failures = 0;
  signups = 0;
  readonly users = new Map<string, number>();
  readonly byAppGroup = new Map<string, number>();
  readonly failureReasons = new Map<string, number>();
  readonly providers = new Map<string, number>();
  pageViews = 0;
  dwellMs = 0;
  readonly visitors = new Set<string>();
  readonly identified = new Set<string>();
  readonly pages = new Map<string, { views: number; dwellMs: number }>();
  readonly referrers = new Map<string, number>();
  readonly campaigns = new Map<string, number>();
  readonly countries = new Map<string, number>();

  add(record: SealedAuditRecord, countryOf: CountryOf): void {
    const data = record.businessData;
    this.totalEvents++;
    bump(this.eventTypes, record.eventType);
    // `org.end_user.*` events count only when the platform wrote them: an API key may ingest any
    // event type, and must not be able to forge sign-in figures.
    const platform = record.actor.type !== 'apiKey';
    switch (platform || record.eventType.startsWith('behavior.') ? record.eventType : '') {
      case 'org.end_user.signed_in': {
        this.logins++;
        bump(this.providers, providerOf(data));
        const user = word(data.endUserId);
        if (user) bump(this.users, user);
        const group = record.appGroupId ?? word(data.appGroupId);
        if (group) bump(this.byAppGroup, group);
        break;
      }
      case 'org.end_user.sign_in_failed':
        this.failures++;
        bump(this.failureReasons, word(data.reason) ?? 'unknown');
        break;
      case 'org.end_user.created':
        if (data.via === 'self_signup') this.signups++;
        break;
      case 'behavior.page_view': {
        this.pageViews++;
        const dwell = typeof data.dwellMs === 'number' && Number.isFinite(data.dwellMs) ? Math.min(Math.max(0, Math.round(data.dwellMs)), MAX_DWELL_MS) : 0;
        this.dwellMs += dwell;
        const page = this.pages.get(word(data.path) ?? '(unknown)') ?? { views: 0, dwellMs: 0 };
        page.views++;
        page.dwellMs += dwell;
        this.pages.set(word(data.path) ?? '(unknown)', page);
        const visitor = word(data.visitorId);
        if (visitor) this.visitors.add(visitor);
        const user = word(data.endUserId);
        if (user) this.identified.add(user);
        const host = referrerHost(data.referrer);
        if (host) bump(this.referrers, host);
        const campaign = word(data.utmSource);
        if (campaign) bump(this.campaigns, campaign.toLowerCase());
        const country = typeof data.ip === 'string' ? countryOf(data.ip) : undefined;
        bump(this.countries, country ?? 'unknown');
        break;
      }
      default:
    }
  }

  result(day: string): DayRollup {
    return {
      version: ROLLUP_VERSION,
      day,
      totalEvents: this.totalEvents,
      eventTypes: top(this.eventTypes),
      signIn: {
        logins: this.logins, failures: this.failures, signups: this.signups, activeUsers: this.users.size,
        failureReasons: top(this.failureReasons), providers: top(this.providers), byAppGroup: top(this.byAppGroup), users: top(this.users, false),
      },
      behavior: {
        pageViews: this.pageViews, dwellMs: this.dwellMs, visitors: this.visitors.size, identifiedUsers: this.identified.size,
        pages: topPages(this.pages), referrers: top(this.referrers), campaigns: top(this.campaigns), countries: top(this.countries),
      },
    };
  }
}

/**
 * Rolls one organization's day up as its records come (row group after row group): `add` each
 * batch, then `result`. A record's app group is its `appGroupId`, else `businessData.appGroupId`.
 */
export class DayRollupBuilder {
  private readonly org = new Accumulator();
  private readonly groups = new Map<string, Accumulator>();

  constructor(private readonly countryOf: CountryOf) {}

  /** Adds records of the day (one organization, any order). */
  add(records: Iterable<SealedAuditRecord>): void {
    for (const record of records) {
      this.org.add(record, this.countryOf);
      const group = record.appGroupId ?? word(record.businessData.appGroupId);
      if (!group) continue;
      let acc = this.groups.get(group);
      if (!acc) this.groups.set(group, (acc = new Accumulator()));
      acc.add(record, this.countryOf);
    }
  }

  /** The rollups of `day` (`YYYY-MM-DD`): the organization's and one per app group present. */
  result(day: string): OrgDayRollups {
    return { org: this.org.result(day), appGroups: Object.fromEntries([...this.groups].map(([id, acc]) => [id, acc.result(day)])) };
  }
}

/**
 * Roll one organization's day up from all its records at once ({@link DayRollupBuilder}).
 * @param day - `YYYY-MM-DD` (UTC), the day file's day.
 * @param records - the day's sealed records (one organization).
 * @param countryOf - IP → country code (the worker's offline database).
 * @returns {@link OrgDayRollups}.
 */
export function rollUpDay(day: string, records: Iterable<SealedAuditRecord>, countryOf: CountryOf): OrgDayRollups {
  const builder = new DayRollupBuilder(countryOf);
  builder.add(records);
  return builder.result(day);
}

/** The provider word of a sign-in: `method`, or for `social` its `provider` (google, microsoft, oidc). */
export function providerOf(data: Record<string, unknown>): string {
  const method = word(data.method) ?? 'unknown';
  return method === 'social' ? (word(data.provider) ?? 'social') : method;
}

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** A non-empty string value, cut to {@link MAX_KEY} characters; undefined otherwise. */
function word(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, MAX_KEY) : undefined;
}

/** The host of a referrer URL (lower case), or undefined when it is not an absolute http(s) URL. */
function referrerHost(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.slice(0, MAX_KEY) : undefined;
  } catch {
    return undefined;
  }
}

/** The {@link TOP_ENTRIES} largest counts (ties by key), the rest summed under `other` (or left out). */
function top(map: Map<string, number>, other = true): Counts {
  const sorted = [...map].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const kept = sorted.slice(0, TOP_ENTRIES);
  const rest = sorted.slice(TOP_ENTRIES).reduce((n, [, c]) => n + c, 0);
  const out: Counts = Object.fromEntries(kept);
  if (rest > 0 && other) out.other = (out.other ?? 0) + rest;
  return out;
}

function topPages(map: Map<string, { views: number; dwellMs: number }>): DayRollup['behavior']['pages'] {
  const sorted = [...map].sort((a, b) => b[1].views - a[1].views || (a[0] < b[0] ? -1 : 1));
  const out = Object.fromEntries(sorted.slice(0, TOP_ENTRIES));
  const rest = sorted.slice(TOP_ENTRIES);
  if (rest.length > 0) {
    const other = out.other ?? { views: 0, dwellMs: 0 };
    for (const [, p] of rest) {
      other.views += p.views;
      other.dwellMs += p.dwellMs;
    }
    out.other = other;
  }
  return out;
}

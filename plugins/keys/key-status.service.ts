import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import { coreRefs, inject, injectable, type AerieConfig, type Clock, type Database } from '../../core/index.ts';
import { MAX_TOKEN_LIFETIME_SECONDS } from './token-lifetime.ts';

/** PostgreSQL channel on which processes tell each other about revocations and rotations. */
const CHANNEL = 'aerie_keys';
/** A retired key older than this signed nothing that is still valid. */
const RETIRED_HORIZON_SECONDS = MAX_TOKEN_LIFETIME_SECONDS + 3600;
const RECONNECT_MS = 1000;

/**
 * A change every process must see: an API key's revocation marker, an API key's new value (the old
 * one must stop working), or a retired signing key.
 */
export type KeyChange =
  | { type: 'revoked'; keyId: string; expiresAt: number }
  | { type: 'rotated'; keyId: string }
  | { type: 'retired'; kid: string; orgId: string };

/** Called for every applied change, and with `resync` when changes may have been missed. */
export type KeyChangeListener = (change: KeyChange | { type: 'resync' }) => void;

// The per-request question asked of the database when the in-memory view is not in sync.
const STATUS_SQL = `select s.retired_at is null as active,
  exists(select 1 from keys.api_key_revocations r where r.key_id = ?) as revoked
  from keys.signing_keys s where s.kid = ?`;

/**
 * Is a machine token's signing key still active and its API key free of a revocation marker?
 * Answered on every request. To keep that off the database, each process holds the revocation
 * markers (spec rule 5: kept for the key's ceiling plus one hour) and the recently retired signing
 * keys in memory: loaded at start, updated by the process that makes a change right after it
 * commits, and by every other process through PostgreSQL `LISTEN/NOTIFY` (the notification is sent
 * by the same transaction). While the listening connection is down (or not yet up) every request
 * asks the database instead, so a missed notification never lets a revoked token through; embedded
 * PGlite serves one process, so its view is always in sync. Other caches of key data (API keys by
 * hash, active signing keys) follow the same changes through {@link KeyStatusService.onChange} and
 * {@link KeyStatusService.version}, and are only used while in sync.
 * @see docs/api/keys.md, 5
 */
@injectable()
export class KeyStatusService {
  private readonly revoked = new Map<string, number>();
  private readonly retired = new Set<string>();
  private inSync = false;
  private listener?: pg.Client;
  private reconnect?: NodeJS.Timeout;
  private stopped = false;
  private generation = 0;
  private changes = 0;
  private readonly listeners: KeyChangeListener[] = [];
  private logger?: Logger;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /** Loads the current markers and retired keys and starts listening for other processes' changes. */
  async start(logger: Logger): Promise<void> {
    this.logger = logger;
    if (this.db.kind === 'pglite' || !this.config.databaseUrl) {
      await this.load();
      this.inSync = true;
      return;
    }
    await this.connect();
  }

  /** Stops listening (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnect);
    this.inSync = false;
    const client = this.listener;
    this.listener = undefined;
    await client?.end().catch(() => undefined);
  }

  /** true while requests are answered from memory (false: from the database). */
  get synced(): boolean {
    return this.inSync;
  }

  /**
   * Grows with every applied change and resynchronisation: a cache fills an entry read from the
   * database only when `version` did not move during the read (no change slipped in between).
   */
  get version(): number {
    return this.changes;
  }

  /** Subscribes a cache to changes. */
  onChange(listener: KeyChangeListener): void {
    this.listeners.push(listener);
  }

  /**
   * true when `kid` is still an active signing key and API key `keyId` has no revocation marker.
   * @param kid the token's `kid` (known to exist)
   * @param keyId the token's `client_id`
   */
  async isLive(kid: string, keyId: string): Promise<boolean> {
    if (this.inSync) return !this.retired.has(kid) && !this.revoked.has(keyId);
    const { rows } = (await this.db.knex.raw(STATUS_SQL, [keyId, kid])) as { rows: Array<{ active: boolean; revoked: boolean }> };
    return Boolean(rows[0]?.active) && !rows[0].revoked;
  }

  /** Tells other processes about `change` when `trx` commits (PostgreSQL server only). */
  async announce(trx: Knex.Transaction, change: KeyChange): Promise<void> {
    if (this.db.kind === 'pg') await trx.raw('select pg_notify(?, ?)', [CHANNEL, JSON.stringify(change)]);
  }

  /** Applies a committed change to this process's view (a revocation first forgets the markers whose time is up). */
  apply(change: KeyChange): void {
    this.changes++;
    if (change.type === 'revoked') {
      this.forgetExpired();
      this.revoked.set(change.keyId, change.expiresAt);
    }
    else if (change.type === 'retired') this.retired.add(change.kid);
    for (const listener of this.listeners) listener(change);
  }

  /** true when API key `keyId` carries a revocation marker (in-sync view only). */
  isRevoked(keyId: string): boolean {
    return this.revoked.has(keyId);
  }

  /** Forgets markers whose time is up (their keys' tokens have all expired): the view grows only by revocations, which prune it. */
  private forgetExpired(): void {
    const now = this.clock.now().getTime();
    for (const [keyId, expiresAt] of this.revoked) if (expiresAt <= now) this.revoked.delete(keyId);
  }

  private async load(): Promise<void> {
    const now = this.clock.now();
    const markers: Array<{ keyId: string; expiresAt: Date }> = await this.db.knex('keys.api_key_revocations').where('expiresAt', '>', now).select('keyId', 'expiresAt');
    const retired: Array<{ kid: string }> = await this.db.knex('keys.signing_keys')
      .where('retiredAt', '>', new Date(now.getTime() - RETIRED_HORIZON_SECONDS * 1000)).select('kid');
    for (const m of markers) this.revoked.set(m.keyId, new Date(m.expiresAt).getTime());
    for (const r of retired) this.retired.add(r.kid);
    this.changes++;
    for (const listener of this.listeners) listener({ type: 'resync' });
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    const client = new pg.Client({ connectionString: this.config.databaseUrl });
    const lost = (err?: Error) => this.lost(generation, client, err);
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      try {
        this.apply(JSON.parse(msg.payload ?? '') as KeyChange);
      } catch (err) {
        lost(err as Error);
      }
    });
    try {
      await client.connect();
      // Listen first, then load: a change committed in between is loaded, notified, or both.
      await client.query(`LISTEN ${CHANNEL}`);
      this.listener = client;
      await this.load();
      if (generation === this.generation && !this.stopped) this.inSync = true;
    } catch (err) {
      lost(err as Error);
    }
  }

  private lost(generation: number, client: pg.Client, err?: Error): void {
    if (generation !== this.generation || this.stopped) return;
    this.generation++;
    if (this.inSync) this.logger?.warn({ err }, 'keys: change listener lost; checking revocations in the database until it is back');
    this.inSync = false;
    this.changes++;
    this.listener = undefined;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    this.reconnect = setTimeout(() => void this.connect(), RECONNECT_MS);
    this.reconnect.unref();
  }
}

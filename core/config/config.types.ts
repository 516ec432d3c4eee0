/**
 * The kernel's validated configuration (schemas/config.schema.json) with derived URLs filled in.
 * Keys a plugin owns (its manifest `config` schema) are not here: the plugin gets them as
 * `ctx.pluginConfig` and the service `<pluginId>.config`.
 */
export interface AerieConfig {
  port: number;
  host: string;
  /** `{base_url}`: where Aerie is reached; the WebAuthn RP ID and origin default from it. */
  baseUrl: string;
  loginUrl: string;
  dashboardUrl: string;
  shareUrl: string;
  marketplaceUrl: string;
  /** Folder for embedded data: `pg/`, `outbox/`, `master.key`. */
  dataDir: string;
  /** PostgreSQL server URL; absent means embedded PGlite. */
  databaseUrl?: string;
  /** 32-byte master key, base64/base64url; absent means generated once under `dataDir`. */
  masterKey?: string;
  platformAdmins: string[];
  plugins: { enabled?: string[]; paths: string[] };
  webauthn: { rpId: string; rpName: string; origins: string[] };
  mail: { from: string; smtpUrl?: string };
  /** `format`: `json` (one object a line), `pretty` (readable), `auto` (pretty on a terminal, else json). */
  log: { level: string; format: 'auto' | 'json' | 'pretty' };
  /**
   * The audit chain: `ingestThreads` (0–64, default 0) — worker threads that render batch ingestion
   * (canonical form, payload hashes, COPY rows) off the main thread, for batches of at least
   * `INGEST_POOL_MIN_EVENTS` (100, core/audit/ingest.ts) events; 0 renders in-line, which measured best on two cores.
   */
  audit: { ingestThreads: number };
  /**
   * The HTTP server's limits: `headersTimeoutSeconds` (1–120, default 10) to receive a request's
   * headers, `requestTimeoutSeconds` (5–3600, default 120) to receive a whole request (headers and
   * body), both answered 408; `maxConnectionsPerAddress` (0–100,000, default 256; 0 = none) open
   * connections from one client address, the next refused with 503 (not applied behind a trusted proxy);
   * `trustProxy` (default false): the client address and scheme come from `X-Forwarded-For` and
   * `X-Forwarded-Proto` set by a reverse proxy in front of Aerie.
   */
  http: { headersTimeoutSeconds: number; requestTimeoutSeconds: number; maxConnectionsPerAddress: number; trustProxy: boolean };
  /**
   * Background jobs: `maintenanceIntervalSeconds`, how often expired jobs are found and retried
   * (1–3600, default 60); `scheduler` (default true), whether this process turns schedule times into
   * jobs and catches up missed ones at start (false: it still runs the jobs, another process times them).
   */
  jobs: { maintenanceIntervalSeconds: number; scheduler: boolean };
  /**
   * `core.workers`, the process's one worker-thread pool: `maxThreads` (1–64, default 2), its
   * threads — started together on first use, kept until shutdown (core/workers).
   */
  workers: { maxThreads: number };
  /** Object storage: `file` under `<dataDir>/blobs` (default) or `s3` with `blob.s3.bucket` (and endpoint, region, path style). */
  blob: { driver: 'file' | 's3'; s3?: { bucket?: string; endpoint?: string; region?: string; forcePathStyle?: boolean } };
  /** Outbound requests to user-supplied URLs: `allowLoopback` (a test switch, off by default, warned about), `caFiles` (extra trusted CAs, PEM). */
  egress: { allowLoopback: boolean; caFiles: string[] };
}

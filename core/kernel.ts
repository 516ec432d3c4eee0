import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { loadConfiguration, type LoadConfigOptions } from './config/load-config.ts';
import type { AerieConfig } from './config/config.types.ts';
import { resolvePluginOrder } from './plugins/resolve-order.ts';
import type { DiscoveredPlugin } from './plugins/manifest.ts';
import { BootError } from './plugins/boot-error.ts';
import { loadDefinition } from './plugins/load-definition.ts';
import type { PluginContext } from './plugins/define-plugin.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migratePlugin } from './db/migrations.ts';
import { resolveMasterKey } from './crypto/master-key.ts';
import { CryptoService } from './crypto/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { Mailer } from './mail/mailer.ts';
import { EventBus } from './events.ts';
import { coreExtensions, coreRefs } from './core-refs.ts';
import type { AuthScheme } from './http/auth-scheme.ts';
import type { RouteDef } from './http/route.ts';
import { SchemaRegistry } from './http/schema-registry.ts';
import { buildRouter } from './http/router.ts';
import { withOrgCredentials } from './http/route-table.ts';
import { KernelAuthz } from './authz/authz-service.ts';
import type { GrantsProvider } from './http/authorizer.ts';
import { createHttpApp, type ErrorFormat } from './http/app.ts';
import { kernelRoutes } from './http/kernel-routes.ts';
import { answerClientError } from './http/client-error.ts';
import { limitConnectionsPerAddress } from './http/connection-limits.ts';
import { KernelSealService } from './seals/seal.service.ts';
import { OutboxAuditService } from './audit/audit.service.ts';
import { AuditSealer } from './audit/sealer.ts';
import { KernelAuditHealth, type AuditHealthService } from './audit/audit-health.ts';
import { registerChainTasks } from './audit/chain/chain-tasks.ts';
import { WorkerPool } from './workers/worker-pool.ts';
import type { ChainHead } from './audit/chain/audit-record.ts';
import { AuditIngestor, INGEST_POOL_MIN_EVENTS } from './audit/ingest.ts';
import { AuditCheckpointer } from './audit/checkpointer.ts';
import { loadOrCreateAuditKey } from './audit/platform-audit-key.ts';
import { secureDataDir } from './data-dir.ts';
import { bannerLine, createLogger } from './logger.ts';
import { PostgresRateLimits } from './rate-limit/rate-limits.ts';
import { PgBossJobs } from './jobs/pg-boss-jobs.ts';
import { createBlobStore } from './blob/create-blob-store.ts';
import { EgressClient } from './egress/egress-client.ts';
import { AUDIT_SEALED_EVENT } from './audit/audit-sealed-event.ts';
import { KernelAuditLog } from './audit/audit-log.ts';
import type { PasskeyStore } from './seals/passkey-store.types.ts';

import { REPO_ROOT } from './repo-root.ts';

export { REPO_ROOT };

export interface KernelOptions extends LoadConfigOptions {
  /** Keep embedded PostgreSQL in memory instead of `<dataDir>/pg`. */
  memoryDatabase?: boolean;
  /** A ready PGlite instance to use (tests load one from a dump). */
  pglite?: PGlite;
  clock?: Clock;
  logger?: Logger;
  /** Log where Aerie listens and where its data is, first thing (`aerie serve`). */
  banner?: boolean;
  /**
   * Check every 2xx JSON answer against its route's `response` schema (500 on a mismatch).
   * Default: on when `NODE_ENV` is `test`, never otherwise. @see core/http/router.ts
   */
  validateResponses?: boolean;
  /**
   * Compile a route's JSON Schema validators on its first request instead of at boot (a process
   * that boots many kernels: the test suite). Unknown schema ids still fail the boot.
   */
  lazySchemas?: boolean;
}

/**
 * A booted Aerie: configuration, database, plugins initialised, HTTP app built.
 * Boot order (docs/plugins.md): config → manifests → database + migrations → plugins → HTTP.
 */
/** How long an idle keep-alive connection stays open (milliseconds). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export class Kernel {
  private server?: Server;
  private readonly shutdownHooks: Array<() => Promise<void> | void> = [];
  private closed = false;
  /** The audit sealer of this process (tests call `drain()` to seal what is pending now). */
  auditSealer!: AuditSealer;
  /** Batch ingestion (`core.audit.ingest`). */
  auditIngestor!: AuditIngestor;
  /** Signs chain heads into `core.audit_checkpoints` (tests call `flush()` to sign waiting heads now). */
  auditCheckpointer!: AuditCheckpointer;

  private constructor(
    readonly config: AerieConfig,
    readonly plugins: DiscoveredPlugin[],
    readonly db: Database,
    readonly container: DependencyContainer,
    readonly logger: Logger,
    readonly routes: RouteDef[],
    readonly app: Koa,
  ) {}

  /**
   * Boots Aerie. @throws ConfigError or BootError with a one-line message naming the key or plugin.
   */
  static async boot(options: KernelOptions = {}): Promise<Kernel> {
    const { config, plugins: discovered, pluginConfig } = loadConfiguration(options);
    secureDataDir(config.dataDir);
    const logger = options.logger ?? createLogger(config);
    // `aerie serve`'s first line: where Aerie answers and where its data lives, before any plugin speaks.
    if (options.banner) logger.info(bannerLine(config, packageVersion()));
    const ordered = resolvePluginOrder(discovered, config.plugins.enabled);
    const definitions = await Promise.all(ordered.map(loadDefinition));
    const embeddedDir = options.memoryDatabase || options.pglite ? null : join(config.dataDir, 'pg');
    const db = await openDatabase({ url: config.databaseUrl, dataDir: embeddedDir, pglite: options.pglite });
    if (embeddedDir) secureDataDir(config.dataDir);
    const hooks: Array<() => Promise<void> | void> = [];
    const started: Array<{ pluginId: string; fn: () => Promise<void> | void }> = [];
    try {
      await migratePlugin(db.knex, 'core', join(REPO_ROOT, 'migrations', 'core'));
      for (const p of ordered) await migratePlugin(db.knex, p.manifest.id, migrationsDir(p));
      const container = rootContainer.createChildContainer();
      const mail = new Mailer({ from: config.mail.from, smtpUrl: config.mail.smtpUrl, outboxDir: join(config.dataDir, 'outbox') });
      const events = new EventBus();
      const jobs = new PgBossJobs(db, logger.child({ component: 'jobs' }), { databaseUrl: config.databaseUrl, maintenanceIntervalSeconds: config.jobs.maintenanceIntervalSeconds, scheduler: config.jobs.scheduler });
      const masterKey = resolveMasterKey(config.masterKey, options.memoryDatabase && !config.masterKey ? null : config.dataDir);
      const crypto = new CryptoService(masterKey);
      const clock = options.clock ?? systemClock;
      const blob = await createBlobStore(config, crypto, () => clock.now());
      if (config.egress.allowLoopback) logger.warn('egress.allowLoopback is on: webhooks and discovery fetches may reach this host (a test switch; never in production)');
      const egress = new EgressClient({ allowLoopback: config.egress.allowLoopback, caFiles: config.egress.caFiles });
      // core.workers: the process's one worker-thread pool, started on first need, closed last (after
      // the sealer's final drain and every plugin's shutdown). The audit chain's tasks are the kernel's.
      const workers = new WorkerPool({ maxThreads: config.workers.maxThreads });
      const chainTasks = registerChainTasks(workers);
      const values: Array<[string, unknown]> = [
        [coreRefs.config.id, config], [coreRefs.db.id, db], [coreRefs.crypto.id, crypto],
        [coreRefs.clock.id, clock], [coreRefs.mail.id, mail], [coreRefs.rateLimits.id, new PostgresRateLimits(db)], [coreRefs.events.id, events], [coreRefs.logger.id, logger],
        [coreRefs.jobs.id, jobs], [coreRefs.blob.id, blob.store], [coreRefs.egress.id, egress], [coreRefs.workers.id, workers],
      ];
      // Each plugin's own validated keys, injectable in its services as `<pluginId>.config`.
      for (const p of ordered) values.push([`${p.manifest.id}.config`, pluginConfig(p.manifest.id)]);
      for (const [id, value] of values) container.register(id, { useValue: value });
      hooks.push(() => mail.close(), () => events.complete(), () => egress.close(), () => workers.close());

      const schemas = new SchemaRegistry({ lazy: options.lazySchemas });
      const routes: Array<{ pluginId: string; def: RouteDef }> = [...kernelRoutes(db, () => container.resolve<AuditHealthService>(coreRefs.auditHealth.id)), ...blob.routes]
        .map((def) => ({ pluginId: 'kernel', def }));
      const authSchemes = new Map<string, AuthScheme>();
      const extensions = new Map<string, unknown[]>();
      const ext = (id: string) => extensions.get(id) ?? extensions.set(id, []).get(id)!;
      const authz = new KernelAuthz(() => ext(coreExtensions.grants.id).at(-1) as GrantsProvider | undefined);
      container.register(coreRefs.authz.id, { useValue: authz });
      // core.seals exists before any plugin: it reads the passkey store (accounts) per call.
      container.register(coreRefs.seals.id, { useValue: new KernelSealService({
        db, clock: container.resolve<Clock>(coreRefs.clock.id), webauthn: config.webauthn, logger: logger.child({ component: 'seals' }),
        passkeys: () => ext(coreExtensions.passkeys.id).at(-1) as PasskeyStore | undefined,
      }) });
      const loadAuditKey = () => loadOrCreateAuditKey(db.knex, container.resolve<CryptoService>(coreRefs.crypto.id).envelope);
      const checkpointer = new AuditCheckpointer(db.knex, clock, loadAuditKey, logger.child({ component: 'audit-checkpoints' }), 5000);
      // Checkpoints are signed, then `core.audit.sealed` tells subscribers (webhook delivery) which chains grew.
      const onSealed = async (heads: Array<ChainHead & { sealedAt: string }>) => {
        await checkpointer.onSealed(heads);
        events.emit({ type: AUDIT_SEALED_EVENT, payload: { heads: heads.map((h) => ({ orgId: h.orgId, seq: h.seq })) } });
      };
      const sealer = new AuditSealer(db, clock, logger.child({ component: 'audit-sealer' }), { pool: chainTasks, onSealed });
      // core.audit: events go to the outbox in the caller's transaction, and the sealer chains them;
      // batches with no transaction to join are sealed directly (ingest), on the same heads.
      // With `audit.ingestThreads`, large batches are rendered on core.workers too.
      const ingestor = new AuditIngestor(db, clock, logger.child({ component: 'audit-ingest' }), {
        afterSealed: onSealed,
        ...(config.audit.ingestThreads > 0 ? { pool: chainTasks, poolThreshold: INGEST_POOL_MIN_EVENTS } : {}),
      });
      container.register(coreRefs.audit.id, { useValue: new OutboxAuditService(clock, ingestor, () => sealer.wake()) });
      container.register(coreRefs.auditHealth.id, { useValue: new KernelAuditHealth(db.knex, clock, sealer) });
      // core.auditLog: the chain's read side for the audit plugin; checkpoints are signed by the checkpointer.
      container.register(coreRefs.auditLog.id, { useValue: new KernelAuditLog(db.knex, checkpointer, loadAuditKey) });
      const manifests = Object.freeze(ordered.map((p) => p.manifest));
      for (const [i, p] of ordered.entries()) {
        definitions[i].register?.({
          plugins: manifests,
          service: (ref, impl) => container.registerSingleton(ref.id, impl),
          value: (ref, value) => container.register(ref.id, { useValue: value }),
          extensionPoint: (point) => container.register(point.id, { useValue: ext(point.id) }),
        });
      }
      for (const [i, p] of ordered.entries()) {
        const def = definitions[i];
        const ctx: PluginContext = {
          id: p.manifest.id, manifest: p.manifest, plugins: manifests, dir: p.dir, config, pluginConfig: () => pluginConfig(p.manifest.id) as never,
          logger: logger.child({ plugin: p.manifest.id }),
          routes: (...defs) => routes.push(...defs.map((d) => ({ pluginId: p.manifest.id, def: d }))),
          provide: (ref, value) => container.register(ref.id, { useValue: value }),
          authScheme: (scheme) => {
            if (authSchemes.has(scheme.name)) throw new BootError(`plugin ${p.manifest.id}: auth scheme "${scheme.name}" is already registered`);
            authSchemes.set(scheme.name, scheme);
          },
          extend: (point, value) => void ext(point.id).push(value),
          extensions: (point) => ext(point.id) as never,
          onShutdown: (fn) => void hooks.push(fn),
          onStarted: (fn) => void started.push({ pluginId: p.manifest.id, fn }),
        };
        const deps: Record<string, unknown> = {};
        for (const [name, ref] of Object.entries(def.deps ?? {})) {
          if (!container.isRegistered(ref.id, true)) throw new BootError(`plugin ${p.manifest.id}: depends on service ${ref.id}, which no enabled plugin provides`);
          deps[name] = container.resolve(ref.id);
        }
        await def.init(deps as never, ctx);
      }
      const last = <T>(id: string) => ext(id).at(-1) as T | undefined;
      const table = withOrgCredentials(routes, authSchemes);
      const router = buildRouter({
        routes: table, schemas, authSchemes,
        orgResolver: last(coreExtensions.orgResolver.id), authz,
        seals: container.isRegistered(coreRefs.seals.id, true) ? container.resolve(coreRefs.seals.id) : undefined,
        validateResponses: options.validateResponses ?? process.env.NODE_ENV === 'test',
      });
      sealer.start();
      // Hooks run in reverse: background jobs stop taking work first, then the sealer stops (and
      // drains), then waiting heads are signed.
      hooks.push(() => checkpointer.close(), () => sealer.stop(), () => jobs.stop());
      await jobs.start();
      for (const { pluginId, fn } of started) {
        await Promise.resolve().then(fn).catch((err: unknown) => logger.error({ err, plugin: pluginId }, 'a plugin start hook failed'));
      }
      const app = createHttpApp(router, logger, ext(coreExtensions.errorFormats.id) as ErrorFormat[], config.http.trustProxy);
      const kernel = new Kernel(config, ordered, db, container, logger, table.map((r) => r.def), app);
      kernel.auditSealer = sealer;
      kernel.auditIngestor = ingestor;
      kernel.auditCheckpointer = checkpointer;
      kernel.shutdownHooks.push(...hooks);
      const { buildOpenApi } = await import('./http/openapi.ts');
      const doc = buildOpenApi(kernel.routes, schemas, { version: packageVersion(), baseUrl: config.baseUrl }, authSchemes);
      router.get('/api/openapi.json', (ctx) => { ctx.body = doc; });
      return kernel;
    } catch (err) {
      for (const hook of hooks.reverse()) await hook();
      await db.close();
      throw err;
    }
  }

  /** Starts serving HTTP; `port` 0 picks a free one. Resolves with the bound port. */
  listen(port = this.config.port, host = this.config.host): Promise<{ port: number; url: string }> {
    return new Promise((resolveListen, reject) => {
      const { headersTimeoutSeconds, requestTimeoutSeconds, maxConnectionsPerAddress } = this.config.http;
      // A slow client (one header line a minute, a body a byte at a time) is answered 408 once its
      // headers or its whole request are late; the limits are checked every second.
      const server = createServer({
        headersTimeout: headersTimeoutSeconds * 1000, requestTimeout: Math.max(requestTimeoutSeconds, headersTimeoutSeconds) * 1000,
        connectionsCheckingInterval: 1000,
      }, this.app.callback());
      server.once('error', reject);
      server.on('clientError', answerClientError);
      // Idle keep-alive connections stay open longer than clients (undici: 4 s) and load balancers
      // (commonly 60 s) keep them, so a client never sends on a connection the server is closing at
      // that moment (ECONNRESET on a busy machine). Idle time between requests is not counted in
      // the headers time-out.
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      // Behind a trusted proxy every connection comes from the proxy: the proxy caps its clients.
      if (!this.app.proxy) limitConnectionsPerAddress(server, maxConnectionsPerAddress);
      server.listen(port, host, () => {
        const addr = server.address();
        const bound = typeof addr === 'object' && addr ? addr.port : port;
        resolveListen({ port: bound, url: `http://127.0.0.1:${bound}` });
      });
      this.server = server;
    });
  }

  /** Graceful shutdown: stop accepting, finish in-flight requests, run plugin hooks, close the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.server) {
      const server = this.server;
      await new Promise<void>((r) => { server.close(() => r()); server.closeIdleConnections(); });
    }
    // One failing hook (a database already gone, a plugin's own error) must not skip the others.
    for (const hook of this.shutdownHooks.reverse()) {
      try {
        await hook();
      } catch (err) {
        this.logger.error({ err }, 'shutdown step failed; going on');
      }
    }
    await this.db.close();
    if (this.db.kind === 'pglite') secureDataDir(this.config.dataDir);
  }
}

function migrationsDir(p: DiscoveredPlugin): string {
  if (p.manifest.migrations) return resolve(p.dir, p.manifest.migrations);
  return join(p.builtIn ? join(REPO_ROOT, 'migrations') : join(p.dir, 'migrations'), p.builtIn ? p.manifest.id : '');
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel, type KernelOptions } from '../../core/kernel.ts';
import { PGLITE_EXTENSIONS } from '../../core/db/pglite-extensions.ts';
import type { Clock } from '../../core/clock.ts';
import { coreRefs } from '../../core/core-refs.ts';
import type { JobsService } from '../../core/jobs/jobs.types.ts';
import { createTestDatabase } from './pg-databases.ts';
import { latestCode } from './mail.ts';
import { freePort } from './child-process.ts';

/** The migrated template's bytes, read once per worker. */
const templates = new Map<string, Blob>();
function templateBlob(file: string): Blob {
  let blob = templates.get(file);
  if (!blob) templates.set(file, (blob = new Blob([readFileSync(file)])));
  return blob;
}

/** An HTTP answer as a client sees it. */
export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface StartOptions {
  /** `AERIE_PLUGINS`; default: every plugin. */
  plugins?: string[];
  /** Other `AERIE_*` variables. */
  env?: Record<string, string>;
  /** Config overrides by dotted key. */
  overrides?: Record<string, unknown>;
  clock?: Clock;
  /**
   * Listen on a port chosen beforehand and make it the base URL (`AERIE_BASE_URL`), so URLs Aerie
   * builds from its configuration (issuers, redirects) are the ones the test reaches: on
   * `http://127.0.0.1:{port}`, or with `'localhost'` on `http://localhost:{port}` (a WebAuthn RP ID
   * must be a host name; a browser then maps localhost to 127.0.0.1).
   */
  exactBaseUrl?: boolean | 'localhost';
  /**
   * Start from an empty database instead of the migrated template: only the enabled plugins'
   * migrations run (a suite that checks what a subset of plugins creates).
   */
  emptyDatabase?: boolean;
}

/**
 * A running Aerie for one test suite: a real kernel on a free port with a temporary data dir, on
 * in-memory PGlite, or on a fresh database of the server named by `TEST_DATABASE_URL`.
 */
export class TestAerie {
  private constructor(
    readonly kernel: Kernel,
    readonly url: string,
    readonly dataDir: string,
    private readonly dropDb?: () => Promise<void>,
  ) {}

  static async start(options: StartOptions = {}): Promise<TestAerie> {
    const dataDir = mkdtempSync(join(tmpdir(), 'aerie-test-'));
    const port = options.exactBaseUrl ? await freePort() : 0;
    const serverUrl = process.env.TEST_DATABASE_URL;
    // Suites start from the migrated template made by global-setup.ts (every plugin's tables; a
    // subset of plugins leaves the others' unused) unless they bring their own master key or ask for an empty one.
    const fromTemplate = !options.env?.AERIE_MASTER_KEY && !options.emptyDatabase;
    const db = serverUrl ? await createTestDatabase(serverUrl, fromTemplate ? process.env.AERIE_TEST_TEMPLATE_DB : undefined) : undefined;
    const env: Record<string, string> = {
      AERIE_DATA_DIR: dataDir,
      AERIE_LOG_LEVEL: process.env.AERIE_TEST_LOG_LEVEL ?? 'silent',
      // Schedules run when a test says (runSchedule), never at a wall-clock time in the middle of a test on a manual clock.
      AERIE_JOBS_SCHEDULER: 'false',
      ...(options.plugins ? { AERIE_PLUGINS: options.plugins.join(',') } : {}),
      ...(db ? { DATABASE_URL: db.url } : {}),
      ...(port ? { AERIE_BASE_URL: `http://${options.exactBaseUrl === 'localhost' ? 'localhost' : '127.0.0.1'}:${port}` } : {}),
      ...options.env,
    };
    const kernelOptions: KernelOptions = { env, cwd: dataDir, overrides: options.overrides, memoryDatabase: !db, clock: options.clock, validateResponses: true, lazySchemas: true };
    const template = process.env.AERIE_TEST_TEMPLATE;
    if (!db && fromTemplate && template) kernelOptions.pglite = new PGlite({ loadDataDir: templateBlob(template), extensions: PGLITE_EXTENSIONS });
    if (fromTemplate && (template || db)) env.AERIE_MASTER_KEY = process.env.AERIE_TEST_TEMPLATE_KEY!;
    try {
      const kernel = await Kernel.boot(kernelOptions);
      const { url } = await kernel.listen(port, '127.0.0.1');
      return new TestAerie(kernel, url, dataDir, db?.drop);
    } catch (err) {
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Sends a JSON request; `token` becomes `Authorization: Bearer`. Raw strings are sent as-is. */
  async request<T = any>(method: string, path: string, opts: { body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    const res = await fetch(this.url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** The master key this instance runs with (a second process on its database needs it). */
  masterKey(): string {
    return this.kernel.config.masterKey ?? readFileSync(join(this.dataDir, 'master.key'), 'utf8').trim();
  }

  /** The newest code mailed to `email`. */
  code(email: string): string {
    return latestCode(this.dataDir, email);
  }

  /** Registers (or signs in) `email` through the real email-code flow; returns the session token. */
  async signIn(email: string, displayName?: string): Promise<string> {
    const sent = await this.request('POST', '/api/v1/users/registration/email', { body: { email, ...(displayName ? { displayName } : {}) } });
    if (sent.status !== 202) throw new Error(`registration failed: ${sent.status} ${JSON.stringify(sent.body)}`);
    const verified = await this.request('POST', '/api/v1/users/verification/email', { body: { email, code: this.code(email) } });
    if (verified.status !== 200) throw new Error(`verification failed: ${verified.status} ${JSON.stringify(verified.body)}`);
    return verified.body.sessionToken as string;
  }

  /**
   * Runs one run of a `core.jobs` schedule now (`runNow`) and waits until it completed.
   * @throws Error when the run failed (its last error) or did not finish within `ms`
   */
  async runSchedule(name: string, ms = 20_000): Promise<void> {
    const jobs = this.kernel.container.resolve<JobsService>(coreRefs.jobs.id);
    const id = await jobs.runNow(name);
    for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      const state = await jobs.state(name, id);
      if (state === 'completed') return;
      if (state === 'failed' || state === 'retry') {
        const [row] = await this.sql(`select last_error from core.job_schedules where name = ?`, [name]);
        throw new Error(`schedule ${name} failed: ${row?.last_error}`);
      }
    }
    throw new Error(`schedule ${name} did not finish within ${ms} ms`);
  }

  /** Raw SQL against this instance's database. */
  sql<T = any>(query: string, bindings: unknown[] = []): Promise<T[]> {
    return this.kernel.db.knex.raw(query, bindings as never[]).then((r: { rows: T[] }) => r.rows);
  }

  async close(): Promise<void> {
    await this.kernel.close();
    await this.dropDb?.();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}


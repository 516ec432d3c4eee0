import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { Kernel } from '../../core/kernel.ts';
import { createTestDatabase } from './pg-databases.ts';

/**
 * Once per `npm test` run: boot every plugin, let the migrations run, and keep the migrated
 * database as a template, so suites start from a copy of it instead of a cold start with every
 * migration (~3 s+ each).
 * - On embedded PostgreSQL: in-memory PGlite dumped to a file (`new PGlite({ loadDataDir })`, ~0.7 s).
 * - On the PostgreSQL server named by `TEST_DATABASE_URL`: a template database that each suite's
 *   database is created from (`create database … template …`).
 * Suites then enable any subset of the plugins: those left out keep their (unused) tables.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'aerie-template-'));
  const masterKey = randomBytes(32).toString('base64');
  const env = { AERIE_DATA_DIR: dir, AERIE_LOG_LEVEL: 'silent', AERIE_MASTER_KEY: masterKey };
  process.env.AERIE_TEST_TEMPLATE_KEY = masterKey;
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const template = await createTestDatabase(serverUrl);
    const kernel = await Kernel.boot({ env: { ...env, DATABASE_URL: template.url } });
    await forgetQueuedJobs(kernel);
    await kernel.close();
    process.env.AERIE_TEST_TEMPLATE_DB = new URL(template.url).pathname.slice(1);
    return async () => {
      await template.drop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const kernel = await Kernel.boot({ memoryDatabase: true, env });
  await forgetQueuedJobs(kernel);
  const pglite = (kernel.db.knex.client as unknown as { pglite: PGlite }).pglite;
  const dump = await pglite.dumpDataDir('none');
  const file = join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await kernel.close();
  process.env.AERIE_TEST_TEMPLATE = file;
  return async () => rmSync(dir, { recursive: true, force: true });
}

/**
 * The jobs the template's own boot queued are not a suite's, nor are its schedules' records: each
 * suite's boot sees its schedules for the first time (so none catches up).
 */
async function forgetQueuedJobs(kernel: Kernel): Promise<void> {
  await kernel.db.knex.raw('delete from core_jobs.job');
  await kernel.db.knex.raw('delete from core.job_schedules');
}

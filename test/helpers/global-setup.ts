import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { Kernel } from '../../core/kernel.ts';

/**
 * Once per `npm test` run on embedded PostgreSQL: boot every plugin on in-memory PGlite, let the
 * migrations run, and dump the migrated database to a file. Suites then start from a copy of it
 * (`new PGlite({ loadDataDir })`, ~0.7 s) instead of a cold PGlite plus migrations (~3 s+).
 * Skipped when `TEST_DATABASE_URL` names a PostgreSQL server.
 */
export default async function setup(): Promise<() => void> {
  if (process.env.TEST_DATABASE_URL) return () => {};
  const dir = mkdtempSync(join(tmpdir(), 'aerie-template-'));
  const masterKey = randomBytes(32).toString('base64');
  const kernel = await Kernel.boot({ memoryDatabase: true, env: { AERIE_DATA_DIR: dir, AERIE_LOG_LEVEL: 'silent', AERIE_MASTER_KEY: masterKey } });
  const pglite = (kernel.db.knex.client as unknown as { pglite: PGlite }).pglite;
  const dump = await pglite.dumpDataDir('none');
  const file = join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await kernel.close();
  process.env.AERIE_TEST_TEMPLATE = file;
  process.env.AERIE_TEST_TEMPLATE_KEY = masterKey;
  return () => rmSync(dir, { recursive: true, force: true });
}

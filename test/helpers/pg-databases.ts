import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Creates a database on the PostgreSQL server named by `adminUrl` for one test suite: empty, or a
 * copy of the database named `template` (no one may be connected to it).
 * @returns its URL and a function that drops it.
 */
export async function createTestDatabase(adminUrl: string, template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `aerie_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${pg.escapeIdentifier(template)}` : ''}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

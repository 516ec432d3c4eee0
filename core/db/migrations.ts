import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

/** The Postgres schema a plugin's tables live in: its id with `-` as `_` (`public-api` → `public_api`). */
export function pluginSchema(pluginId: string): string {
  return pluginId.replace(/-/g, '_');
}

/**
 * Runs a plugin's pending migrations from `dir` inside its own Postgres schema, with its own
 * migration table (`<schema>.knex_migrations`). Migration files are `NNN_name.ts` modules exporting
 * `up(knex)` (and optionally `down(knex)`).
 * @returns names of the migrations applied now.
 */
export async function migratePlugin(knex: Knex, pluginId: string, dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const schemaName = pluginSchema(pluginId);
  await knex.raw('create schema if not exists ??', [schemaName]);
  const files = readdirSync(dir).filter((f) => /^\d+[-_].+\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts')).sort();
  const source: Knex.MigrationSource<string> = {
    getMigrations: async () => files,
    getMigrationName: (f) => f.replace(/\.(ts|js|mjs)$/, ''),
    getMigration: async (f) => (await import(pathToFileURL(join(dir, f)).href)) as Knex.Migration,
  };
  const [, applied] = (await knex.migrate.latest({ schemaName, tableName: 'knex_migrations', migrationSource: source })) as [number, string[]];
  return applied;
}

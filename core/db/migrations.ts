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
  const files = readdirSync(dir).filter((f) => /^\d+[-_].+\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts')).sort();
  // Most starts find every migration applied: one query instead of knex's lock and table checks.
  if (await allApplied(knex, schemaName, files.map(migrationName))) return [];
  await knex.raw('create schema if not exists ??', [schemaName]);
  const source: Knex.MigrationSource<string> = {
    getMigrations: async () => files,
    getMigrationName: migrationName,
    getMigration: async (f) => (await import(pathToFileURL(join(dir, f)).href)) as Knex.Migration,
  };
  const [, applied] = (await knex.migrate.latest({ schemaName, tableName: 'knex_migrations', migrationSource: source })) as [number, string[]];
  return applied;
}

function migrationName(file: string): string {
  return file.replace(/\.(ts|js|mjs)$/, '');
}

/** Whether `<schema>.knex_migrations` exists and names exactly `names` (else knex checks and migrates). */
async function allApplied(knex: Knex, schemaName: string, names: string[]): Promise<boolean> {
  const table = `${schemaName}.knex_migrations`;
  const [found] = ((await knex.raw('select to_regclass(?) as t', [table])) as { rows: Array<{ t: string | null }> }).rows;
  if (!found?.t) return false;
  const { rows } = (await knex.raw('select name from ??', [table])) as { rows: Array<{ name: string }> };
  const applied = new Set(rows.map((r) => r.name));
  return applied.size === names.length && names.every((n) => applied.has(n));
}

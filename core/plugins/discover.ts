import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRequire } from 'node:module';
import { createAjv, describeAjvError } from '../validation.ts';
import type { DiscoveredPlugin, PluginManifest } from './manifest.ts';
import { BootError } from './boot-error.ts';

const require = createRequire(import.meta.url);
const manifestSchema = require('../../schemas/plugin-manifest.schema.json') as object;
const validateManifest = createAjv().compile(manifestSchema);

/**
 * Finds every `plugins/*\/plugin.json` under `builtInDir` and every plugin in `extraPaths` (a path is
 * a plugin folder, or a folder of plugin folders), validating each manifest.
 * @throws BootError on an invalid manifest, an id that differs from its folder, or a duplicate id.
 */
export function discoverPlugins(builtInDir: string, extraPaths: string[]): DiscoveredPlugin[] {
  const found: DiscoveredPlugin[] = [];
  for (const dir of childDirs(builtInDir)) {
    if (existsSync(join(dir, 'plugin.json'))) found.push(readPlugin(dir, true));
  }
  for (const path of extraPaths) {
    if (!existsSync(path)) throw new BootError(`plugin path ${path} does not exist`);
    const dirs = existsSync(join(path, 'plugin.json')) ? [path] : childDirs(path).filter((d) => existsSync(join(d, 'plugin.json')));
    if (dirs.length === 0) throw new BootError(`plugin path ${path} holds no plugin.json`);
    for (const dir of dirs) found.push(readPlugin(dir, false));
  }
  const seen = new Map<string, string>();
  for (const p of found) {
    const other = seen.get(p.manifest.id);
    if (other) throw new BootError(`plugin ${p.manifest.id}: duplicate id (${other} and ${p.dir})`);
    seen.set(p.manifest.id, p.dir);
  }
  return found;
}

function childDirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((p) => statSync(p).isDirectory())
    .sort();
}

function readPlugin(dir: string, builtIn: boolean): DiscoveredPlugin {
  const file = join(dir, 'plugin.json');
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BootError(`plugin manifest ${file} is not valid JSON (${(err as Error).message.replace(/\s*[\r\n]+\s*/g, ' ')})`);
  }
  if (!validateManifest(data)) {
    const { message } = describeAjvError(validateManifest.errors, 'manifest');
    throw new BootError(`plugin manifest ${file}: ${message}`);
  }
  const manifest = data as unknown as PluginManifest;
  if (manifest.id !== basename(dir)) {
    throw new BootError(`plugin ${manifest.id}: id must equal its folder name (${basename(dir)})`);
  }
  return { manifest, dir, builtIn };
}

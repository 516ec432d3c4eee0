import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BootError } from '../plugins/boot-error.ts';
import type { DiscoveredPlugin } from '../plugins/manifest.ts';
import type { EnvBinding } from './env-map.ts';

/** A JSON Schema node as far as the config loader reads it. */
interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  /** The environment variable that sets this key (config schemas only). */
  env?: string;
}

/** The top-level configuration keys one plugin owns, with their schemas and environment variables. */
export interface PluginConfigSchema {
  pluginId: string;
  /** Top-level key → its JSON Schema (as in the plugin's `config` file). */
  properties: Record<string, SchemaNode>;
  env: EnvBinding[];
}

/**
 * Reads the `config` schema of each plugin that declares one: a JSON Schema object whose
 * `properties` are the top-level keys of `aerie.config.json` the plugin owns; a leaf may name its
 * environment variable with `"env": "AERIE_…"` (read as its `type`: integer, array = comma list,
 * else string).
 * @param plugins - discovered plugins (enabled or not, so a disabled plugin's keys stay accepted).
 * @param kernelKeys - the kernel's own top-level keys.
 * @throws BootError naming the plugin when the file is unreadable, not an object schema, or claims
 *   a key the kernel or another plugin owns.
 */
export function readPluginConfigSchemas(plugins: readonly DiscoveredPlugin[], kernelKeys: readonly string[]): PluginConfigSchema[] {
  const owner = new Map<string, string>(kernelKeys.map((k) => [k, 'the kernel']));
  const out: PluginConfigSchema[] = [];
  for (const p of plugins) {
    if (!p.manifest.config) continue;
    const id = p.manifest.id;
    let schema: SchemaNode;
    try {
      schema = JSON.parse(readFileSync(resolve(p.dir, p.manifest.config), 'utf8')) as SchemaNode;
    } catch (err) {
      throw new BootError(`plugin ${id}: config schema ${p.manifest.config} cannot be read (${(err as Error).message.replace(/\s*[\r\n]+\s*/g, ' ')})`);
    }
    if (schema.type !== 'object' || !schema.properties) throw new BootError(`plugin ${id}: config schema must be an object schema with properties`);
    for (const key of Object.keys(schema.properties)) {
      const other = owner.get(key);
      if (other) throw new BootError(`plugin ${id}: config key ${key} is already ${other === 'the kernel' ? other : `plugin ${other}`}'s`);
      owner.set(key, id);
    }
    out.push({ pluginId: id, properties: schema.properties, env: envBindings(schema.properties, '') });
  }
  return out;
}

function envBindings(properties: Record<string, SchemaNode>, prefix: string): EnvBinding[] {
  return Object.entries(properties).flatMap(([name, node]) => {
    const key = `${prefix}${name}`;
    const own: EnvBinding[] = node.env ? [{ key, env: node.env, kind: node.type === 'integer' ? 'integer' : node.type === 'array' ? 'list' : 'string' }] : [];
    return [...own, ...envBindings(node.properties ?? {}, `${key}.`)];
  });
}

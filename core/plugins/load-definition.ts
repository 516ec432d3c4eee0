import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BootError } from './boot-error.ts';
import type { PluginDefinition } from './define-plugin.ts';
import type { DiscoveredPlugin } from './manifest.ts';

/**
 * Imports a plugin's entry module and checks its default export. In the compiled build a `.ts`
 * entry (a partner plugin in TypeScript) first turns on TypeScript loading (core/cli/typescript-plugins.ts).
 * @param p - a discovered plugin.
 * @returns its `definePlugin({...})` value.
 * @throws BootError naming the plugin when the entry is missing, exports no plugin, or declares another id.
 */
export async function loadDefinition(p: DiscoveredPlugin): Promise<PluginDefinition> {
  const file = resolve(p.dir, p.manifest.entry);
  if (!existsSync(file)) throw new BootError(`plugin ${p.manifest.id}: entry ${p.manifest.entry} does not exist`);
  if (/\.[cm]?ts$/.test(file) && import.meta.url.endsWith('.js')) await (await import('../cli/typescript-plugins.ts')).enableTypeScriptPlugins();
  const mod = (await import(pathToFileURL(file).href)) as { default?: PluginDefinition };
  if (!mod.default || typeof mod.default.init !== 'function') throw new BootError(`plugin ${p.manifest.id}: entry must default-export definePlugin({...})`);
  if (mod.default.id !== p.manifest.id) throw new BootError(`plugin ${p.manifest.id}: entry declares id "${mod.default.id}"`);
  return mod.default;
}

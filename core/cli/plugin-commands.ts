import type { Command } from 'commander';
import { loadConfiguration } from '../config/load-config.ts';
import { resolveMasterKey } from '../crypto/master-key.ts';
import { CryptoService } from '../crypto/index.ts';
import { loadDefinition } from '../plugins/load-definition.ts';
import { resolvePluginOrder } from '../plugins/resolve-order.ts';
import type { CommandEnvironment } from '../plugins/define-plugin.ts';
import { Kernel } from '../kernel.ts';

/**
 * Adds the commands of every enabled plugin (their `commands(program, env)` hook), in boot order.
 * When the plugin set cannot boot (a missing dependency, a cycle), no plugin command is added: the
 * kernel's own commands (`aerie plugins`, `aerie serve`) report the reason.
 * @param program - the root `aerie` command.
 * @param env - environment variables (default `process.env`).
 * @throws ConfigError for an invalid configuration; BootError for a plugin entry that does not load.
 */
export async function addPluginCommands(program: Command, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { config, plugins, pluginConfig } = loadConfiguration({ env });
  let ordered;
  try {
    ordered = resolvePluginOrder(plugins, config.plugins.enabled);
  } catch {
    return;
  }
  const environment: Omit<CommandEnvironment, 'pluginConfig'> = {
    config,
    crypto: () => new CryptoService(resolveMasterKey(config.masterKey, config.dataDir)),
    boot: async () => {
      const kernel = await Kernel.boot({ env });
      return { resolve: (ref) => kernel.container.resolve(ref.id), close: () => kernel.close() };
    },
  };
  for (const p of ordered) (await loadDefinition(p)).commands?.(program, { ...environment, pluginConfig: () => pluginConfig(p.manifest.id) as never });
}

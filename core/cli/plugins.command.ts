import type { Command } from 'commander';
import { loadConfiguration } from '../config/load-config.ts';
import { resolvePluginOrder } from '../plugins/resolve-order.ts';

/** `aerie plugins`: every discovered plugin, enabled or not, with version and what it requires. */
export function pluginsCommand(program: Command): void {
  program
    .command('plugins')
    .description('list plugins: enabled or not, version, requirements')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => {
      const { config, plugins: all } = loadConfiguration();
      let enabled: Set<string>;
      let problem: string | undefined;
      try {
        enabled = new Set(resolvePluginOrder(all, config.plugins.enabled).map((p) => p.manifest.id));
      } catch (err) {
        problem = (err as Error).message;
        enabled = new Set(config.plugins.enabled ?? all.map((p) => p.manifest.id));
      }
      const rows = all.map((p) => ({
        id: p.manifest.id, version: p.manifest.version, enabled: enabled.has(p.manifest.id), requires: p.manifest.requires,
        kernelApi: p.manifest.kernelApi, source: p.builtIn ? 'built-in' : p.dir, description: p.manifest.description,
      }));
      if (opts.json) {
        process.stdout.write(JSON.stringify({ plugins: rows, problem }, null, 2) + '\n');
        return;
      }
      for (const r of rows) {
        process.stdout.write(`${r.enabled ? '[x]' : '[ ]'} ${r.id.padEnd(14)} ${r.version.padEnd(8)} requires: ${r.requires.join(', ') || '-'}  (${r.source})\n`);
      }
      if (problem) process.stdout.write(`boot would stop: ${problem}\n`);
    });
}

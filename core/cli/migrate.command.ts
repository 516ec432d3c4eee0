import type { Command } from 'commander';
import { Kernel } from '../kernel.ts';

/** `aerie migrate`: applies every enabled plugin's pending migrations (boot does this too) and exits. */
export function migrateCommand(program: Command): void {
  program
    .command('migrate')
    .description("apply enabled plugins' database migrations and exit")
    .action(async () => {
      const kernel = await Kernel.boot();
      process.stdout.write(`migrated: ${kernel.plugins.map((p) => p.manifest.id).join(', ')} (${kernel.db.kind})\n`);
      await kernel.close();
    });
}

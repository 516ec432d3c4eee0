import 'reflect-metadata';
import { Command } from 'commander';
import { ConfigError } from '../config/load-config.ts';
import { BootError } from '../plugins/boot-error.ts';
import { serveCommand } from './serve.command.ts';
import { migrateCommand } from './migrate.command.ts';
import { pluginsCommand } from './plugins.command.ts';
import { registerSealCommands } from '../seals/verify-proof.command.ts';
import { registerAuditFileCommands } from '../audit/chain/index.ts';
import { addPluginCommands } from './plugin-commands.ts';

/**
 * Builds the `aerie` command line: the kernel's commands (`serve`, `migrate`, `plugins`,
 * `seal verify`, `audit verify-file`) and those the enabled plugins contribute.
 * @throws ConfigError for an invalid configuration.
 */
export async function buildProgram(env: NodeJS.ProcessEnv = process.env): Promise<Command> {
  const program = new Command('aerie').description('Aerie: identity, access and governance service').showHelpAfterError();
  serveCommand(program);
  migrateCommand(program);
  pluginsCommand(program);
  registerSealCommands(program);
  registerAuditFileCommands(program);
  await addPluginCommands(program, env);
  return program;
}

try {
  await (await buildProgram()).parseAsync(process.argv);
} catch (err) {
  // One line for the operator; the stack only when asked for (AERIE_DEBUG=1) or for real bugs.
  const known = err instanceof ConfigError || err instanceof BootError;
  if (known || process.env.AERIE_DEBUG !== '1') {
    process.stderr.write(`aerie: ${(err as Error).message}\n`);
    if (!known && process.env.AERIE_DEBUG !== '1') process.stderr.write('(set AERIE_DEBUG=1 for the stack trace)\n');
    process.exit(1);
  }
  throw err;
}

import 'reflect-metadata';
import { Command } from 'commander';
import { ConfigError } from '../config/load-config.ts';
import { BootError } from '../plugins/boot-error.ts';
import { serveCommand } from './serve.command.ts';
import { migrateCommand } from './migrate.command.ts';
import { pluginsCommand } from './plugins.command.ts';
import { registerSealCommands } from '../seals/verify-proof.command.ts';
import { registerBoxCommands } from '../../appliance/simulator/commands.ts';

/** Builds the `aerie` command line. */
export function buildProgram(): Command {
  const program = new Command('aerie').description('Aerie: identity, access and governance service').showHelpAfterError();
  serveCommand(program);
  migrateCommand(program);
  pluginsCommand(program);
  registerSealCommands(program);
  registerBoxCommands(program);
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError || err instanceof BootError) {
    process.stderr.write(`aerie: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

import type { Command } from 'commander';
import type { CommandEnvironment } from '../../core/index.ts';
import { generateRearmKey, REARM_KEY_FILE } from './rearm-key.ts';

/**
 * Adds `aerie roost keygen [--force]`: makes the re-arm signing key under the data dir
 * (envelope-encrypted) and prints its fingerprint and public key PEM.
 * @param program - the root `aerie` command.
 * @param env - the kernel CLI's environment (configuration, `core.crypto`).
 * @throws Error (from the action) when a key exists and `--force` is not given.
 */
export function registerRoostCommands(program: Command, env: Pick<CommandEnvironment, 'config' | 'crypto'>): Command {
  const roost = program.command('roost').description('signing box re-arm (server side)');
  roost
    .command('keygen')
    .description(`generate the re-arm signing key into <dataDir>/${REARM_KEY_FILE} (envelope-encrypted)`)
    .option('--force', 'replace an existing key (boxes pinned to the old key must be re-pinned)')
    .action((opts: { force?: boolean }) => {
      const key = generateRearmKey(env.config.dataDir, env.crypto().envelope, opts.force === true);
      process.stdout.write(`re-arm key written; fingerprint ${key.publicDocument.fingerprint}\n${key.publicDocument.publicKeyPem}`);
    });
  return program;
}

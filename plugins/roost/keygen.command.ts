import type { Command } from 'commander';
import { cliEnvironment } from '../../core/index.ts';
import { generateRearmKey, REARM_KEY_FILE } from './rearm-key.ts';

/** `aerie roost keygen [--force]`: makes the re-arm signing key under the data dir and prints its fingerprint. */
export function registerRoostCommands(program: Command): Command {
  const roost = program.command('roost').description('signing box re-arm (server side)');
  roost
    .command('keygen')
    .description(`generate the re-arm signing key into <dataDir>/${REARM_KEY_FILE} (envelope-encrypted)`)
    .option('--force', 'replace an existing key (boxes pinned to the old key must be re-pinned)')
    .action((opts: { force?: boolean }) => {
      const { config, crypto } = cliEnvironment();
      const key = generateRearmKey(config.dataDir, crypto.envelope, opts.force === true);
      process.stdout.write(`re-arm key written; fingerprint ${key.publicDocument.fingerprint}\n${key.publicDocument.publicKeyPem}`);
    });
  return program;
}

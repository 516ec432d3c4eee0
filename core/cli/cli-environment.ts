import { loadConfig } from '../config/load-config.ts';
import type { AerieConfig } from '../config/config.types.ts';
import { resolveMasterKey } from '../crypto/master-key.ts';
import { CryptoService } from '../crypto/index.ts';

/** What a plugin's command-line tool gets from the kernel without booting it (no database). */
export interface CliEnvironment {
  /** The configuration from `aerie.config.json` and `AERIE_*` variables, validated. */
  config: AerieConfig;
  /** `core.crypto` under the configured master key (or the one kept in the data dir). */
  crypto: CryptoService;
}

/**
 * Loads the configuration and the master key the way `aerie serve` does.
 * @param env - environment variables (default `process.env`)
 * @throws ConfigError for an invalid configuration; Error when the master key is malformed
 */
export function cliEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  const config = loadConfig({ env });
  return { config, crypto: new CryptoService(resolveMasterKey(config.masterKey, config.dataDir)) };
}

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/load-config.ts';

/**
 * Resolves the 32-byte master key: `AERIE_MASTER_KEY` (base64 or base64url) when set; otherwise
 * `<dataDir>/master.key`, generated once (mode 0600) on first start. `dataDir` `null` (in-memory
 * tests) gives a fresh random key.
 * @throws ConfigError when the configured key does not decode to 32 bytes.
 */
export function resolveMasterKey(configured: string | undefined, dataDir: string | null): Buffer {
  if (configured) {
    const key = Buffer.from(configured.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length !== 32) throw new ConfigError('invalid config: masterKey must decode to 32 bytes (from AERIE_MASTER_KEY)');
    return key;
  }
  if (dataDir === null) return randomBytes(32);
  const file = join(dataDir, 'master.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new ConfigError(`invalid config: ${file} does not hold a 32-byte base64 key`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600 });
  return key;
}

import { createPrivateKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { rearmPublicKeyDocument, type RearmPublicKeyDocument } from '../../appliance/api.ts';
import type { CryptoService } from '../../core/index.ts';

type EnvelopeCipher = CryptoService['envelope'];

/** Where `aerie roost keygen` keeps the re-arm key, envelope-encrypted, under the data dir. */
export const REARM_KEY_FILE = 'roost/rearm-key.json';
const AAD = 'roost.rearm_key';

/** The server's re-arm signing key: P-256 secret scalar and the public document boxes pin. */
export interface RearmKey {
  secret: Uint8Array;
  publicDocument: RearmPublicKeyDocument;
}

/**
 * Reads `AERIE_ROOST_KEY` (PKCS#8 PEM, or the 32-byte scalar as base64url) — or else the encrypted
 * key file under `dataDir`. @returns `null` when neither exists (re-arm then answers 503).
 * @throws Error when the configured key or file is malformed or does not decrypt.
 */
export function loadRearmKey(configured: string | undefined, dataDir: string, cipher: EnvelopeCipher): RearmKey | null {
  if (configured) return fromSecret(parseSecret(configured));
  const file = join(dataDir, REARM_KEY_FILE);
  if (!existsSync(file)) return null;
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { v: number; encrypted: string };
  return fromSecret(new Uint8Array(Buffer.from(cipher.decryptText(stored.encrypted, AAD), 'base64url')));
}

/**
 * Generates a new re-arm key into `<dataDir>/roost/rearm-key.json` (secret envelope-encrypted under
 * the master key). @throws Error when a key file exists and `force` is not set.
 */
export function generateRearmKey(dataDir: string, cipher: EnvelopeCipher, force = false): RearmKey {
  const file = join(dataDir, REARM_KEY_FILE);
  if (existsSync(file) && !force) throw new Error(`${file} exists; pass --force to replace it (boxes pinned to the old key will refuse new tickets)`);
  const key = fromSecret(p256.utils.randomSecretKey());
  mkdirSync(dirname(file), { recursive: true });
  const record = { v: 1, alg: 'ES256', fingerprint: key.publicDocument.fingerprint, encrypted: cipher.encrypt(Buffer.from(key.secret).toString('base64url'), AAD) };
  writeFileSync(file, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
  return key;
}

function parseSecret(text: string): Uint8Array {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) {
    const jwk = createPrivateKey(trimmed).export({ format: 'jwk' });
    if (jwk.crv !== 'P-256' || !jwk.d) throw new Error('AERIE_ROOST_KEY must be a P-256 private key');
    return new Uint8Array(Buffer.from(jwk.d, 'base64url'));
  }
  const raw = new Uint8Array(Buffer.from(trimmed, 'base64url'));
  if (raw.length !== 32) throw new Error('AERIE_ROOST_KEY must be a PKCS#8 PEM or a 32-byte base64url scalar');
  return raw;
}

function fromSecret(secret: Uint8Array): RearmKey {
  if (!p256.utils.isValidSecretKey(secret)) throw new Error('the re-arm key is not a valid P-256 secret');
  return { secret, publicDocument: rearmPublicKeyDocument(p256.getPublicKey(secret, false)) };
}

import { hkdfSync } from 'node:crypto';
import { EnvelopeCipher } from './envelope.ts';
import { constantTimeEqual, randomDigits, randomToken, sha256Hex } from './tokens.ts';

/** `core.crypto`: envelope encryption under the master key, token hashing and comparison. */
export class CryptoService {
  readonly envelope: EnvelopeCipher;
  constructor(private readonly masterKey: Buffer) {
    this.envelope = new EnvelopeCipher(masterKey);
  }

  /**
   * A 32-byte key for one purpose, derived from the master key (HKDF-SHA256, `info` = `purpose`):
   * a key that signs download URLs can never decrypt secrets, and rotating the master key rotates it.
   * @example crypto.deriveKey('core.blob.url')
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.alloc(0), purpose, 32));
  }
  randomToken = randomToken;
  randomDigits = randomDigits;
  sha256Hex = sha256Hex;
  constantTimeEqual = constantTimeEqual;
}

export { EnvelopeCipher, constantTimeEqual, randomDigits, randomToken, sha256Hex };

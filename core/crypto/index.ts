import { EnvelopeCipher } from './envelope.ts';
import { constantTimeEqual, randomDigits, randomToken, sha256Hex } from './tokens.ts';

/** `core.crypto`: envelope encryption under the master key, token hashing and comparison. */
export class CryptoService {
  readonly envelope: EnvelopeCipher;
  constructor(masterKey: Buffer) {
    this.envelope = new EnvelopeCipher(masterKey);
  }
  randomToken = randomToken;
  randomDigits = randomDigits;
  sha256Hex = sha256Hex;
  constantTimeEqual = constantTimeEqual;
}

export { EnvelopeCipher, constantTimeEqual, randomDigits, randomToken, sha256Hex };

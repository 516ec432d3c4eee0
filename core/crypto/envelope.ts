import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'aev1';

/**
 * Envelope encryption under the master key (AES-256-GCM): each value gets its own random data key,
 * which is itself wrapped by the master key. Output: `aev1.<wrappedKey>.<iv>.<ciphertext+tag>`
 * (base64url parts). `aad` binds the ciphertext to its context (e.g. `orgs.signing_key:<orgId>`),
 * so a value copied into another row does not decrypt.
 */
export class EnvelopeCipher {
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  }

  /** Encrypts `plaintext` (UTF-8 string or bytes). */
  encrypt(plaintext: string | Uint8Array, aad = ''): string {
    const dataKey = randomBytes(32);
    const wrapped = seal(this.masterKey, dataKey, `${VERSION}:dek`);
    const body = seal(dataKey, typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : Buffer.from(plaintext), aad);
    return [VERSION, wrapped, body].join('.');
  }

  /** Decrypts to bytes. @throws Error when the value was altered, the AAD differs or the key is wrong. */
  decrypt(envelope: string, aad = ''): Buffer {
    const [version, wIv, wCt, bIv, bCt] = envelope.split('.');
    if (version !== VERSION || !bCt) throw new Error('not an Aerie envelope');
    const dataKey = open(this.masterKey, wIv, wCt, `${VERSION}:dek`);
    return open(dataKey, bIv, bCt, aad);
  }

  /** Decrypts to a UTF-8 string. */
  decryptText(envelope: string, aad = ''): string {
    return this.decrypt(envelope, aad).toString('utf8');
  }
}

function seal(key: Buffer, data: Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(data), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString('base64url')}.${ct.toString('base64url')}`;
}

function open(key: Buffer, ivText: string, ctText: string, aad: string): Buffer {
  const iv = Buffer.from(ivText, 'base64url');
  const all = Buffer.from(ctText, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(all.subarray(all.length - 16));
  return Buffer.concat([decipher.update(all.subarray(0, all.length - 16)), decipher.final()]);
}

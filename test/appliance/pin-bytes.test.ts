/** Pinning a key (PEM/SPKI → point, fingerprint) and the strict byte codecs the box relies on. */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64Decode, base64urlDecode, base64urlEncode, fromHex, utf8Decode, utf8Encode } from '../../appliance/bytes.ts';
import { PinError, pemFromPoint, pinFromPem, pinFromSpki } from '../../appliance/pin.ts';

describe('pin', () => {
  it('parses a PEM written by Node and fingerprints its SPKI DER (SHA-256, lowercase hex)', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const der = publicKey.export({ type: 'spki', format: 'der' });
    const pin = pinFromPem(pem);
    expect(pin.fingerprint).toBe(createHash('sha256').update(der).digest('hex'));
    expect(pin.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const jwk = publicKey.export({ format: 'jwk' });
    expect(Buffer.from(pin.publicKey.subarray(1, 33)).toString('base64url')).toBe(jwk.x);
    // our own PEM writer round-trips to the same key
    expect(pemFromPoint(pin.publicKey)).toBe(pem);
    // PEM pasted on one line (as on the Espruino console) works too
    expect(pinFromPem(pem.replace(/\n/g, '')).fingerprint).toBe(pin.fingerprint);
  });

  it('accepts the compressed-point SPKI form', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = publicKey.export({ type: 'spki', format: 'der' });
    const pin = pinFromSpki(new Uint8Array(der));
    const compressedPoint = Buffer.from(pin.publicKey.subarray(0, 33));
    compressedPoint[0] = 2 + (pin.publicKey[64] & 1);
    const spki = Buffer.concat([fromHex('3039301306072a8648ce3d020106082a8648ce3d030107032200'), compressedPoint]);
    const node = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(node.export({ format: 'jwk' }).x).toBe(publicKey.export({ format: 'jwk' }).x);
    expect(pinFromSpki(new Uint8Array(spki)).fingerprint).toBe(createHash('sha256').update(spki).digest('hex'));
  });

  it.each([
    ['an Ed25519 key', () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string],
    ['a P-384 key', () => generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'pem' }) as string],
    ['an RSA key', () => generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }) as string],
    ['a private key', () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string],
    ['a point off the curve', () => pemFromPointUnchecked()],
    ['garbage', () => 'hello'],
  ])('refuses %s with INVALID_PIN', (_l, make) => {
    expect(() => pinFromPem(make())).toThrow(PinError);
    try {
      pinFromPem(make());
    } catch (e) {
      expect((e as PinError).code).toBe('INVALID_PIN');
    }
  });
});

function pemFromPointUnchecked(): string {
  const der = Buffer.concat([fromHex('3059301306072a8648ce3d020106082a8648ce3d030107034200'), Buffer.from([4]), Buffer.alloc(64, 1)]);
  return '-----BEGIN PUBLIC KEY-----\n' + der.toString('base64') + '\n-----END PUBLIC KEY-----\n';
}

describe('byte codecs (no Buffer on the box)', () => {
  it('base64url round-trips every length and matches Node', () => {
    for (let n = 0; n < 70; n++) {
      const b = new Uint8Array(n).map((_, i) => (i * 37 + n) & 255);
      const enc = base64urlEncode(b);
      expect(enc).toBe(Buffer.from(b).toString('base64url'));
      expect(Buffer.from(base64urlDecode(enc)).equals(Buffer.from(b))).toBe(true);
    }
  });

  it.each([['padding', 'AAA='], ['standard alphabet', 'ab+/'], ['impossible length', 'AAAAA'], ['non-zero trailing bits', 'AB'], ['whitespace', 'AA AA']])(
    'base64url refuses %s',
    (_l, text) => {
      expect(() => base64urlDecode(text)).toThrow();
    },
  );

  it('standard base64 (PEM bodies) decodes with padding and line breaks', () => {
    expect(Buffer.from(base64Decode('aGVs\nbG8=')).toString()).toBe('hello');
    expect(() => base64Decode('aGVsbG8==')).toThrow();
  });

  it('UTF-8 matches Node and refuses malformed input', () => {
    const text = 'aé€😀ß';
    expect(Buffer.from(utf8Encode(text)).equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(utf8Decode(new Uint8Array(Buffer.from(text, 'utf8')))).toBe(text);
    for (const bad of [[0xc0, 0xaf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80]]) {
      expect(() => utf8Decode(new Uint8Array(bad))).toThrow();
    }
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvelopeCipher, constantTimeEqual, randomDigits, randomToken, sha256Hex } from '../../../core/crypto/index.ts';
import { resolveMasterKey } from '../../../core/crypto/master-key.ts';
import { ConfigError } from '../../../core/config/load-config.ts';

/** Flips one bit of byte `index` inside the base64url part `part` of an envelope. */
function tamper(envelope: string, part: number, index = 0): string {
  const parts = envelope.split('.');
  const bytes = Buffer.from(parts[part], 'base64url');
  bytes[index] ^= 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('envelope encryption (AES-256-GCM under the master key)', () => {
  const master = randomBytes(32);
  const cipher = new EnvelopeCipher(master);
  const aad = 'orgs.signing_key:0b5c6f0e-3a51-4c1e-9d7e-2f0c1d9a8b7c';

  it.each([
    ['ascii text', 'client-secret-123'],
    ['unicode text', 'pässwörd ✓ 秘密'],
    ['empty string', ''],
    ['a long value', 'x'.repeat(100_000)],
  ])('round-trips %s', (_label, value) => {
    const envelope = cipher.encrypt(value, aad);
    expect(envelope.startsWith('aev1.')).toBe(true);
    expect(envelope).not.toContain(value || 'never-matches');
    expect(cipher.decryptText(envelope, aad)).toBe(value);
  });

  it('round-trips bytes', () => {
    const bytes = randomBytes(77);
    expect(cipher.decrypt(cipher.encrypt(bytes, aad), aad).equals(bytes)).toBe(true);
  });

  it('round-trips without AAD (default empty) and refuses a value then read with one', () => {
    const envelope = cipher.encrypt('secret');
    expect(cipher.decryptText(envelope)).toBe('secret');
    expect(() => cipher.decryptText(envelope, aad)).toThrow();
  });

  it('gives a different envelope for each encryption of one value', () => {
    const a = cipher.encrypt('same', aad);
    const b = cipher.encrypt('same', aad);
    expect(a).not.toBe(b);
    expect(cipher.decryptText(a, aad)).toBe('same');
    expect(cipher.decryptText(b, aad)).toBe('same');
  });

  const envelope = cipher.encrypt('top secret value', aad);
  it.each([
    ['a flipped byte in the ciphertext', () => cipher.decrypt(tamper(envelope, 4, 0), aad)],
    ['a flipped byte in the tag', () => cipher.decrypt(tamper(envelope, 4, Buffer.from(envelope.split('.')[4], 'base64url').length - 1), aad)],
    ['a flipped byte in the IV', () => cipher.decrypt(tamper(envelope, 3, 5), aad)],
    ['a flipped byte in the wrapped data key', () => cipher.decrypt(tamper(envelope, 2, 3), aad)],
    ['another AAD (value copied to another row)', () => cipher.decrypt(envelope, 'orgs.signing_key:another-org')],
    ['another master key', () => new EnvelopeCipher(randomBytes(32)).decrypt(envelope, aad)],
    ['a truncated envelope', () => cipher.decrypt(envelope.split('.').slice(0, 4).join('.'), aad)],
    ['another version prefix', () => cipher.decrypt(envelope.replace(/^aev1/, 'aev2'), aad)],
  ])('refuses to decrypt with %s', (_label, run) => {
    expect(run).toThrow();
  });

  it('refuses a master key that is not 32 bytes', () => {
    expect(() => new EnvelopeCipher(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('resolveMasterKey', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'aerie-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates <dataDir>/master.key once with mode 0600 and reuses it', () => {
    const dataDir = join(dir, 'data');
    const file = join(dataDir, 'master.key');
    expect(existsSync(file)).toBe(false);
    const first = resolveMasterKey(undefined, dataDir);
    expect(first.length).toBe(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, 'utf8');
    expect(Buffer.from(stored.trim(), 'base64').equals(first)).toBe(true);

    const second = resolveMasterKey(undefined, dataDir);
    expect(second.equals(first)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(stored);
    // A value encrypted before a restart decrypts after it.
    expect(new EnvelopeCipher(second).decryptText(new EnvelopeCipher(first).encrypt('kept'))).toBe('kept');
  });

  it('prefers the configured key and writes no file', () => {
    const key = randomBytes(32);
    expect(resolveMasterKey(key.toString('base64url'), dir).equals(key)).toBe(true);
    expect(existsSync(join(dir, 'master.key'))).toBe(false);
  });

  it('gives a fresh random key per call in memory (dataDir null)', () => {
    expect(resolveMasterKey(undefined, null).equals(resolveMasterKey(undefined, null))).toBe(false);
  });

  it('refuses a master.key file that does not hold 32 bytes, naming the file on one line', () => {
    writeFileSync(join(dir, 'master.key'), Buffer.alloc(16).toString('base64'));
    let caught: unknown;
    try {
      resolveMasterKey(undefined, dir);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toContain(join(dir, 'master.key'));
    expect((caught as Error).message).not.toMatch(/\n/);
  });
});

describe('tokens', () => {
  it('randomDigits(6) always gives 6 decimal digits, leading zeros kept', () => {
    const codes = Array.from({ length: 2000 }, () => randomDigits(6));
    for (const code of codes) expect(code).toMatch(/^[0-9]{6}$/);
    // 10% of uniform codes start with 0; padding must keep them 6 long.
    expect(codes.some((c) => c.startsWith('0'))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(1900);
  });

  it.each([
    ['equal strings', 'abc123', 'abc123', true],
    ['empty strings', '', '', true],
    ['one differing character', 'abc123', 'abc124', false],
    ['a prefix', 'abc', 'abc123', false],
    ['different case', 'ABC', 'abc', false],
    ['one empty', '', 'a', false],
  ])('constantTimeEqual on %s is %s', (_label, a, b, expected) => {
    expect(constantTimeEqual(a, b)).toBe(expected);
    expect(constantTimeEqual(b, a)).toBe(expected);
  });

  it('randomToken gives 256-bit base64url tokens by default', () => {
    const t = randomToken();
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).not.toBe(t);
  });

  it('sha256Hex is the standard SHA-256 in lowercase hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

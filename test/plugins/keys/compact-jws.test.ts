import { createHook } from 'node:async_hooks';
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { base64url, CompactSign, compactVerify, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { encodeSegment, rs256Signer } from '../../../plugins/keys/compact-jws.ts';

/**
 * The access-token signer's JWS step (docs/api/keys.md, "The token"): header and claims encoded as
 * RFC 7515 compact serialization, signed RS256 with `crypto.sign` on libuv's pool. RSASSA-PKCS1-v1_5
 * is deterministic, so every token must equal, byte for byte, what jose's `CompactSign` makes of the
 * same header and the same JSON — and verify with jose.
 */
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
const header = { alg: 'RS256', typ: 'at+jwt', kid: 'kid-1' } as const;
const sign = rs256Signer(privateKey, header);

const jsonValue = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 4 }));
const claimSets = fc.record({
  sub: fc.string({ unit: 'binary' }), iat: fc.integer({ min: 0, max: 4_000_000_000 }), exp: fc.integer({ min: 0, max: 4_000_000_000 }),
  extra: fc.dictionary(fc.string({ unit: 'binary', minLength: 1 }), jsonValue, { maxKeys: 6 }),
}).map(({ extra, ...c }) => ({ ...extra, ...c }));

describe('keys: compact JWS signing on the pool (RS256)', () => {
  it('encodes a segment as base64url of the UTF-8 JSON, without padding', () => {
    expect(encodeSegment({ alg: 'RS256' })).toBe('eyJhbGciOiJSUzI1NiJ9');
    fc.assert(fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })), (value) => {
      const encoded = encodeSegment(value);
      expect(encoded).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(new TextDecoder().decode(base64url.decode(encoded))).toBe(JSON.stringify(value));
    }));
  });

  it('makes exactly the token jose CompactSign makes for the same header and claims, and it verifies', async () => {
    await fc.assert(fc.asyncProperty(claimSets, async (claims) => {
      const token = await sign(claims);
      const reference = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader(header).sign(privateKey);
      expect(token).toBe(reference);
      const { payload } = await compactVerify(token, publicKey, { algorithms: ['RS256'] });
      expect(new TextDecoder().decode(payload)).toBe(JSON.stringify(claims));
    }), { numRuns: 80 });
  });

  it('keeps the header exactly (members and order) and the claims as given, nothing added', async () => {
    const claims = { iss: 'https://x', sub: 's', aud: 'https://x/api', jti: 'j', iat: 1_800_000_000, exp: 1_800_000_300 };
    const token = await sign(claims);
    expect(Object.keys(decodeProtectedHeader(token))).toEqual(['alg', 'typ', 'kid']);
    const { payload, protectedHeader } = await jwtVerify(token, publicKey, { algorithms: ['RS256'], typ: 'at+jwt', currentDate: new Date(1_800_000_100_000) });
    expect(protectedHeader).toStrictEqual(header);
    expect(payload).toStrictEqual(claims);
    expect(Object.keys(payload)).toEqual(Object.keys(claims));
  });

  it('signs on libuv\'s thread pool (an asynchronous sign job), not on the event loop', async () => {
    const types: string[] = [];
    const hook = createHook({ init: (_id, type) => { types.push(type); } }).enable();
    try {
      await sign({ sub: 's', iat: 1, exp: 2 });
    } finally {
      hook.disable();
    }
    expect(types).toContain('SIGNREQUEST');
  });

  it.each([
    ['a fractional exp', { sub: 's', exp: 1.5 }, /exp must be an integer/],
    ['a string iat', { sub: 's', iat: '1700000000' }, /iat must be an integer/],
    ['an unsafe nbf', { sub: 's', nbf: 2 ** 60 }, /nbf must be an integer/],
    ['an array', ['sub'], /plain object/],
    ['null', null, /plain object/],
  ])('refuses %s (rejected TypeError, nothing signed)', async (_label, claims, message) => {
    await expect(sign(claims as never)).rejects.toThrow(message);
    await expect(sign(claims as never)).rejects.toBeInstanceOf(TypeError);
  });

  it('refuses at once a header of another alg, and a key that is not an RSA private key', () => {
    expect(() => rs256Signer(privateKey, { alg: 'HS256' } as never)).toThrow(/unsupported JWS alg HS256/);
    expect(() => rs256Signer(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, header)).toThrow(/RSA private key/);
    expect(() => rs256Signer(publicKey, header)).toThrow(/RSA private key/);
  });
});

import { sign, type KeyObject } from 'node:crypto';

/** A JWS protected header: `alg` first, then the other members in the order given. */
export type JwsHeader = { alg: 'RS256'; [member: string]: string };

/** Claims whose value must be a NumericDate (RFC 7519 §2) when present. */
const NUMERIC_DATE_CLAIMS = ['iat', 'exp', 'nbf'] as const;

/**
 * One segment of a compact JWS: the UTF-8 of `JSON.stringify(value)` in base64url without padding
 * (RFC 7515 §2). Lone surrogates are kept as JSON escapes (`\udc00`), so they survive the trip.
 * @example encodeSegment({ alg: 'RS256' }) // 'eyJhbGciOiJSUzI1NiJ9'
 */
export function encodeSegment(value: object): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/**
 * Makes an RS256 compact-JWS signer for one key and header (RFC 7515 §7.1): the header is encoded once;
 * each call encodes `claims` as given (nothing added, key order kept) and signs
 * `BASE64URL(header) '.' BASE64URL(claims)` with RSASSA-PKCS1-v1_5 over SHA-256, asynchronously on
 * libuv's thread pool (`crypto.sign` with a callback), so the RSA work leaves the event loop.
 * @param privateKey an RSA private key, parsed once by the caller
 * @param header the protected header, e.g. `{ alg: 'RS256', typ: 'at+jwt', kid }`
 * @throws TypeError at once for another `alg` or a key that is not an RSA private key
 * @returns `(claims) => Promise<compact JWS>`; the promise rejects with a TypeError when `claims` is
 *   not a plain object or has an `iat`, `exp` or `nbf` that is not an integer number of seconds
 * @example const token = await rs256Signer(key, { alg: 'RS256', typ: 'at+jwt', kid })({ sub: 'a', iat, exp });
 */
export function rs256Signer(privateKey: KeyObject, header: JwsHeader): (claims: Record<string, unknown>) => Promise<string> {
  if (header.alg !== 'RS256') throw new TypeError(`unsupported JWS alg ${String(header.alg)}`);
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'rsa') throw new TypeError('RS256 needs an RSA private key');
  const encodedHeader = encodeSegment(header);
  return (claims) => new Promise<string>((resolve, reject) => {
    checkClaims(claims);
    const input = `${encodedHeader}.${encodeSegment(claims)}`;
    sign('sha256', Buffer.from(input, 'utf8'), privateKey, (err, signature) => {
      if (err) reject(err);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}

function checkClaims(claims: Record<string, unknown>): void {
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw new TypeError('JWT claims must be a plain object');
  for (const name of NUMERIC_DATE_CLAIMS) {
    const value = claims[name];
    if (value !== undefined && !Number.isSafeInteger(value)) throw new TypeError(`JWT claim ${name} must be an integer number of seconds`);
  }
}

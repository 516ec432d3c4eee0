import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a file-driver download URL carries: key, expiry (Unix seconds), disposition, file name. */
export interface BlobGrant {
  key: string;
  exp: number;
  disposition: 'attachment' | 'inline';
  fileName?: string;
}

/**
 * Encodes a grant as `<base64url JSON>.<base64url HMAC-SHA256>` under `secret` (a key derived from
 * the master key for this purpose only).
 */
export function signGrant(grant: BlobGrant, secret: Buffer): string {
  const payload = Buffer.from(JSON.stringify(grant)).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

/**
 * @returns the grant when the signature is right and it has not expired at `now` (Unix seconds),
 *   else undefined.
 */
export function verifyGrant(token: string, secret: Buffer, now: number): BlobGrant | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = createHmac('sha256', secret).update(payload).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let grant: BlobGrant;
  try {
    grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as BlobGrant;
  } catch {
    return undefined;
  }
  return typeof grant.key === 'string' && typeof grant.exp === 'number' && grant.exp > now ? grant : undefined;
}

/**
 * Turn `--pin <pem|url>` into a {@link PinnedKey}: a PEM file path, PEM text, or the server's
 * public-key URL (`GET /api/roost/rearm-public-key` → `{alg:'ES256', publicKeyPem, fingerprint}`).
 */
import { readFileSync } from 'node:fs';
import { PinError, pinFromPem, type PinnedKey } from '../pin.ts';

/** Where a pin came from. */
export interface ResolvedPin {
  /** The parsed key with its locally computed fingerprint. */
  pin: PinnedKey;
  /** `url`, `file` or `pem` (inline text). */
  source: 'url' | 'file' | 'pem';
}

/** Options for {@link resolvePin}. */
export interface ResolvePinOptions {
  /** `fetch` to use for URLs; default global `fetch`. */
  fetch?: typeof fetch;
  /** Expected fingerprint (64 hex); a different key is refused. */
  expectFingerprint?: string;
}

/**
 * Resolve and check the key to pin. For a URL the served `fingerprint` must equal the one
 * computed here from `publicKeyPem`, and `alg` must be `ES256`.
 * @param source - `http(s)://…` URL, PEM text, or path of a PEM file
 * @param opts - fetch implementation and optional expected fingerprint
 * @throws PinError (`code` `INVALID_PIN`) for a bad key, a bad answer or a fingerprint mismatch;
 *   Error when the URL cannot be fetched or the file cannot be read
 */
export async function resolvePin(source: string, opts: ResolvePinOptions = {}): Promise<ResolvedPin> {
  let resolved: ResolvedPin;
  if (/^https?:\/\//i.test(source)) {
    const res = await (opts.fetch ?? fetch)(source, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error('GET ' + source + ' answered ' + res.status);
    const body = (await res.json()) as { alg?: unknown; publicKeyPem?: unknown; fingerprint?: unknown };
    if (body.alg !== 'ES256' || typeof body.publicKeyPem !== 'string') {
      throw new PinError('answer is not {alg:"ES256", publicKeyPem, fingerprint}');
    }
    const pin = pinFromPem(body.publicKeyPem);
    if (typeof body.fingerprint !== 'string' || body.fingerprint.toLowerCase() !== pin.fingerprint) {
      throw new PinError('served fingerprint does not match the served key');
    }
    resolved = { pin, source: 'url' };
  } else if (source.indexOf('-----BEGIN') >= 0) {
    resolved = { pin: pinFromPem(source), source: 'pem' };
  } else {
    resolved = { pin: pinFromPem(readFileSync(source, 'utf8')), source: 'file' };
  }
  if (opts.expectFingerprint !== undefined && opts.expectFingerprint.toLowerCase() !== resolved.pin.fingerprint) {
    throw new PinError('key fingerprint ' + resolved.pin.fingerprint + ' is not the expected one');
  }
  return resolved;
}

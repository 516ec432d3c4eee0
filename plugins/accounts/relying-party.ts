import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AerieConfig } from '../../core/index.ts';

/** The WebAuthn relying party Aerie is: RP ID, the name authenticators show, accepted origins. */
export interface RelyingParty {
  rpId: string;
  rpName: string;
  origins: string[];
}

/** A registration or sign-in challenge is valid this long (seconds). */
export const WEBAUTHN_CHALLENGE_TTL_SECONDS = 300;

/**
 * Only ES256 (COSE -7): every passkey must be able to sign a step-up whose `SealProof` a third
 * party verifies with an ES256 key (docs/seals.md).
 */
export const SUPPORTED_ALGORITHMS = [-7];

/** `webauthn.rpId`, `webauthn.rpName`, `webauthn.origins` (defaults derived from the base URL). @see README "Configuration" */
export function relyingParty(config: AerieConfig): RelyingParty {
  return { rpId: config.webauthn.rpId, rpName: config.webauthn.rpName, origins: config.webauthn.origins };
}

/** The WebAuthn user handle of an account: the 16 bytes of its UUID. */
export function userHandleOf(accountId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(accountId.replace(/-/g, ''), 'hex'));
}

/** The first 16 hex characters of a key's SHA-256 fingerprint, as mails and the activity log show it. @see docs/audit.md */
export function shortFingerprint(fingerprintHex: string): string {
  return fingerprintHex.slice(0, 16);
}

/** `challenge` from a base64url `clientDataJSON`, or `undefined` when unreadable. */
export function clientDataChallenge(clientDataJSON: unknown): string | undefined {
  if (typeof clientDataJSON !== 'string') return undefined;
  try {
    const challenge = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')).challenge;
    return typeof challenge === 'string' && challenge.length > 0 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Types a WebAuthn response the route schema checked only in part (`id`, `type`,
 * `response.clientDataJSON`, what Aerie reads itself) as the full JSON form: `@simplewebauthn/server`
 * verifies every other member and refuses the response when one is missing or wrong.
 * @param response - the validated request member.
 */
export function asWebAuthnJson<T>(response: { id: string; type: 'public-key'; response: { clientDataJSON: string } }): T {
  return response as unknown as T;
}

/** The browser bundle of @simplewebauthn/browser (UMD, global `SimpleWebAuthnBrowser`), for pages that run passkey ceremonies. */
export function webauthnBundlePath(): string {
  const main = createRequire(import.meta.url).resolve('@simplewebauthn/browser'); // …/browser/script/index.js
  return join(dirname(main), '..', 'dist', 'bundle', 'index.umd.min.js');
}

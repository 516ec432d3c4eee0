/**
 * `SealProof`: what an audit record keeps of a content-bound passkey assertion, and the standalone
 * check a third party runs on it with nothing but the credential's public key.
 *
 * Verification (docs/seals.md), node:crypto only, no database:
 * - base64url(SHA-256(UTF-8 canonical)) equals `challenge` in `clientDataJSON`;
 * - `clientDataJSON.type` is `webauthn.get` and the UP flag is set in `authenticatorData`;
 * - the ES256 (DER-encoded ECDSA P-256/SHA-256) signature over
 *   `authenticatorData ‖ SHA-256(clientDataJSON)` verifies with the public key;
 * - optionally: origin, RP ID hash and the canonical line rebuilt from the document.
 */
import { createHash, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { bindingChallengeBase64url, canonicalLine, SealBindingError, type SealBinding } from './binding.ts';

/** Proof format version. @see docs/seals.md */
export const SEAL_PROOF_VERSION = 'aerie-stepup-proof-v1';

/** Field `sp` of a stamp audit event; the last three are unpadded base64url. @see docs/seals.md */
export interface SealProof {
  v: typeof SEAL_PROOF_VERSION;
  /** The canonical line that was signed (UTF-8 text). */
  canonical: string;
  /** WebAuthn credential id (base64url, as in `AuthenticationResponseJSON.id`). */
  credentialId: string;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
}

/** A credential public key: JWK (EC P-256), JWK JSON text, SPKI PEM text, or COSE_Key bytes (EC2, alg -7). @see docs/seals.md */
export type SealPublicKey = JsonWebKey | string | Uint8Array;

/** Outcome of each check; optional ones appear only when the caller asked for them. @see docs/seals.md */
export interface SealProofChecks {
  wellFormed: boolean;
  challengeMatches: boolean;
  typeIsGet: boolean;
  userPresent: boolean;
  signatureValid: boolean;
  originMatches?: boolean;
  rpIdMatches?: boolean;
  canonicalMatches?: boolean;
}

/** Result of {@link verifySealProof}; `reason` names the first failed check. @see docs/seals.md */
export interface SealProofVerification {
  ok: boolean;
  checks: SealProofChecks;
  reason?: string;
  /** Parsed from the proof when readable: `clientDataJSON` origin, authenticator counter and UV flag. */
  origin?: string;
  signCount?: number;
  userVerified?: boolean;
}

const B64URL_RE = /^[A-Za-z0-9_-]*$/;
const fromB64url = (s: string) => Buffer.from(s, 'base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/**
 * Builds the proof from the binding (or its canonical line) and the assertion that signed it.
 * @param response - `AuthenticationResponseJSON`, as an object or JSON text (`assertionResponseJson`).
 * @throws SealBindingError `seal_binding_mismatch` (403) when the assertion's challenge is not this binding's;
 *   SyntaxError when `response` is text that is not JSON
 * @see docs/seals.md
 */
export function makeSealProof(binding: SealBinding | string, response: AuthenticationResponseJSON | string): SealProof {
  const canonical = typeof binding === 'string' ? binding : canonicalLine(binding);
  const r: AuthenticationResponseJSON = typeof response === 'string' ? JSON.parse(response) : response;
  let challenge: unknown;
  try {
    challenge = JSON.parse(fromB64url(r.response.clientDataJSON).toString('utf8')).challenge;
  } catch {
    challenge = undefined;
  }
  if (challenge !== bindingChallengeBase64url(canonical)) {
    throw new SealBindingError('seal_binding_mismatch', 'the assertion did not sign this binding');
  }
  return {
    v: SEAL_PROOF_VERSION,
    canonical,
    credentialId: r.id,
    authenticatorData: r.response.authenticatorData,
    clientDataJSON: r.response.clientDataJSON,
    signature: r.response.signature,
  };
}

/**
 * Verifies a proof with only the credential's public key. Never throws: an unreadable proof or key
 * yields `ok: false` with a `reason`.
 * @param expect - optional extra checks: exact `origin`, `rpId` (SHA-256 compared with the first
 *   32 bytes of `authenticatorData`), and `binding` rebuilt from the document (rule 6, third part).
 * @example verifySealProof(event.sp, jwk, { rpId: 'aerie.example' }).ok
 * @see docs/seals.md
 */
export function verifySealProof(
  proof: SealProof,
  publicKey: SealPublicKey,
  expect: { origin?: string; rpId?: string; binding?: SealBinding | string } = {},
): SealProofVerification {
  const checks: SealProofChecks = { wellFormed: false, challengeMatches: false, typeIsGet: false, userPresent: false, signatureValid: false };
  const fields = [proof?.authenticatorData, proof?.clientDataJSON, proof?.signature];
  if (proof?.v !== SEAL_PROOF_VERSION || typeof proof.canonical !== 'string' || !fields.every((f) => typeof f === 'string' && B64URL_RE.test(f))) {
    return { ok: false, checks, reason: `not a ${SEAL_PROOF_VERSION} proof with base64url fields` };
  }
  const authData = fromB64url(proof.authenticatorData);
  const clientDataBytes = fromB64url(proof.clientDataJSON);
  let clientData: { type?: unknown; challenge?: unknown; origin?: unknown };
  try {
    clientData = JSON.parse(clientDataBytes.toString('utf8'));
  } catch {
    return { ok: false, checks, reason: 'clientDataJSON is not JSON' };
  }
  if (authData.length < 37 || typeof clientData !== 'object' || clientData === null) {
    return { ok: false, checks, reason: 'authenticatorData shorter than 37 bytes or clientDataJSON not an object' };
  }
  checks.wellFormed = true;
  checks.challengeMatches = clientData.challenge === sha256(Buffer.from(proof.canonical, 'utf8')).toString('base64url');
  checks.typeIsGet = clientData.type === 'webauthn.get';
  checks.userPresent = (authData[32] & 0x01) === 0x01;
  let key: KeyObject | undefined;
  let keyProblem: string | undefined;
  try {
    key = importPublicKey(publicKey);
  } catch (err) {
    keyProblem = (err as Error).message;
  }
  try {
    const signed = Buffer.concat([authData, sha256(clientDataBytes)]);
    checks.signatureValid = !!key && verify('sha256', signed, { key, dsaEncoding: 'der' }, fromB64url(proof.signature));
  } catch {
    checks.signatureValid = false; // not a DER ECDSA signature
  }
  if (expect.origin !== undefined) checks.originMatches = clientData.origin === expect.origin;
  if (expect.rpId !== undefined) checks.rpIdMatches = sha256(expect.rpId).equals(authData.subarray(0, 32));
  if (expect.binding !== undefined) {
    try {
      checks.canonicalMatches = (typeof expect.binding === 'string' ? expect.binding : canonicalLine(expect.binding)) === proof.canonical;
    } catch {
      checks.canonicalMatches = false;
    }
  }
  const reasons: Record<keyof SealProofChecks, string> = {
    wellFormed: '',
    challengeMatches: 'SHA-256(canonical) does not equal the challenge in clientDataJSON',
    typeIsGet: 'clientDataJSON.type is not webauthn.get',
    userPresent: 'user presence flag is not set in authenticatorData',
    signatureValid: keyProblem ? `signature not checked, unusable public key: ${keyProblem}` : 'ES256 signature does not verify with this public key',
    originMatches: 'clientDataJSON.origin is not the expected origin',
    rpIdMatches: 'authenticatorData RP ID hash is not SHA-256 of the expected RP ID',
    canonicalMatches: 'canonical line differs from the one rebuilt from the document',
  };
  const failed = (Object.keys(checks) as (keyof SealProofChecks)[]).find((k) => checks[k] === false);
  return {
    ok: failed === undefined,
    checks,
    ...(failed ? { reason: reasons[failed] } : {}),
    ...(typeof clientData.origin === 'string' ? { origin: clientData.origin } : {}),
    signCount: authData.readUInt32BE(33),
    userVerified: (authData[32] & 0x04) === 0x04,
  };
}

/**
 * Turns any accepted public key form into a P-256 `KeyObject` (node:crypto).
 * @throws Error when the key is unreadable or not an EC P-256 key
 * @see docs/seals.md
 */
export function importPublicKey(publicKey: SealPublicKey): KeyObject {
  let key: KeyObject;
  if (publicKey instanceof Uint8Array) {
    const { x, y } = decodeCoseEc2(publicKey);
    key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: x.toString('base64url'), y: y.toString('base64url') }, format: 'jwk' });
  } else if (typeof publicKey === 'string' && !publicKey.trimStart().startsWith('{')) {
    key = createPublicKey(publicKey);
  } else {
    const jwk = typeof publicKey === 'string' ? (JSON.parse(publicKey) as JsonWebKey) : publicKey;
    key = createPublicKey({ key: jwk, format: 'jwk' });
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('public key is not an EC P-256 key');
  }
  return key;
}

/** Reads x and y from a COSE_Key (RFC 9053 EC2: kty 2, alg -7, crv 1); a minimal CBOR reader for that one map. */
function decodeCoseEc2(bytes: Uint8Array): { x: Buffer; y: Buffer } {
  const buf = Buffer.from(bytes);
  let pos = 0;
  const head = () => {
    if (pos >= buf.length) throw new Error('COSE key is truncated');
    const byte = buf[pos++];
    const info = byte & 0x1f;
    let arg = info;
    if (info === 24) arg = buf.readUInt8((pos += 1) - 1);
    else if (info === 25) arg = buf.readUInt16BE((pos += 2) - 2);
    else if (info === 26) arg = buf.readUInt32BE((pos += 4) - 4);
    else if (info > 26) throw new Error('COSE key uses unsupported CBOR lengths');
    return { major: byte >> 5, arg };
  };
  const scalar = (): number | Buffer => {
    const { major, arg } = head();
    if (major === 0) return arg;
    if (major === 1) return -1 - arg;
    if (major === 2) return buf.subarray(pos, (pos += arg));
    throw new Error(`COSE key has an unsupported CBOR item (major type ${major})`);
  };
  const map = head();
  if (map.major !== 5) throw new Error('COSE key is not a CBOR map');
  const entries = new Map<number, number | Buffer>();
  for (let i = 0; i < map.arg; i++) {
    const label = scalar();
    if (typeof label !== 'number') throw new Error('COSE key label is not an integer');
    entries.set(label, scalar());
  }
  const [kty, alg, crv, x, y] = [1, 3, -1, -2, -3].map((label) => entries.get(label));
  if (kty !== 2 || (alg !== undefined && alg !== -7) || crv !== 1) throw new Error('COSE key is not EC2 P-256 / ES256');
  if (!Buffer.isBuffer(x) || !Buffer.isBuffer(y) || x.length !== 32 || y.length !== 32) throw new Error('COSE key x/y are not 32 bytes');
  return { x, y };
}

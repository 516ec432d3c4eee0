/**
 * A software WebAuthn authenticator plus client for tests: real P-256 keys (node:crypto), real
 * authenticatorData, CBOR attestation objects (`none` or `packed` self attestation) and DER ES256
 * assertions that @simplewebauthn/server verifies like a browser's.
 *
 * Negative-test knobs per call: clear UP/UV, override origin, RP ID, type or challenge, force the
 * signature counter, corrupt the signature.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;
const ES256 = -7;

/** Authenticator-wide settings; `origin` and `rpId` are what the "browser" reports by default. */
export interface SoftAuthenticatorOptions {
  origin: string;
  rpId: string;
  /** 16 bytes; all zeros by default (as for `none` attestation). */
  aaguid?: Uint8Array;
  /** BE flag; default true (a synced passkey). */
  backupEligible?: boolean;
  /** BS flag; default true. Set only with `backupEligible`. */
  backedUp?: boolean;
}

/** Per-ceremony overrides for negative tests. */
export interface CeremonyOverrides {
  /** Default true; false clears the UP flag. */
  userPresent?: boolean;
  /** Default true; false clears the UV flag. */
  userVerified?: boolean;
  /** Origin written into clientDataJSON. */
  origin?: string;
  /** RP ID whose SHA-256 starts authenticatorData. */
  rpId?: string;
  /** clientDataJSON `type`. */
  type?: string;
  /** Challenge written into clientDataJSON instead of the options' challenge. */
  challenge?: string;
}

/** Options of {@link SoftAuthenticator.getAssertion}. */
export interface AssertionOverrides extends CeremonyOverrides {
  /** Use this credential (must be held); default: first allowed one, else first for the RP ID. */
  credentialId?: string;
  /** Use (and keep) this counter instead of incrementing. */
  signCount?: number;
  /** Flip the last signature byte (keeps valid DER, breaks the signature). */
  corruptSignature?: boolean;
}

interface HeldCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  cose: Uint8Array;
  signCount: number;
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/**
 * In-memory authenticator holding ES256 credentials.
 * @example const auth = new SoftAuthenticator({ origin: 'https://aerie.test', rpId: 'aerie.test' });
 */
export class SoftAuthenticator {
  readonly origin: string;
  readonly rpId: string;
  readonly #aaguid: Uint8Array;
  readonly #flagsBackup: number;
  readonly #credentials = new Map<string, HeldCredential>();

  constructor(options: SoftAuthenticatorOptions) {
    this.origin = options.origin;
    this.rpId = options.rpId;
    this.#aaguid = options.aaguid ?? new Uint8Array(16);
    const be = options.backupEligible ?? true;
    this.#flagsBackup = (be ? FLAG.BE : 0) | (be && (options.backedUp ?? true) ? FLAG.BS : 0);
  }

  /**
   * navigator.credentials.create(): makes a new P-256 credential and its attestation.
   * @throws Error when ES256 is not offered or an excluded credential is held here
   */
  createCredential(
    options: PublicKeyCredentialCreationOptionsJSON,
    { attestation = 'none', corruptSignature = false, ...o }: CeremonyOverrides & {
      attestation?: 'none' | 'packed';
      /** Flip the last byte of the `packed` attestation signature. */
      corruptSignature?: boolean;
    } = {},
  ): RegistrationResponseJSON {
    if (!options.pubKeyCredParams.some((p) => p.alg === ES256)) throw new Error('NotSupportedError: ES256 not offered');
    if (options.excludeCredentials?.some((c) => this.#credentials.has(c.id))) throw new Error('InvalidStateError: credential excluded');
    const rpId = options.rp.id ?? this.rpId;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(new Map<number, number | Uint8Array>([
      [1, 2], [3, ES256], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')],
    ]));
    const id = b64url(randomBytes(32));
    const credential: HeldCredential = { id, rpId, userHandle: options.user.id, privateKey, publicKey, cose, signCount: 0 };
    this.#credentials.set(id, credential);

    const rawId = Buffer.from(id, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(rawId.length);
    const authData = this.#authData(o.rpId ?? rpId, o, FLAG.AT, 0, Buffer.concat([this.#aaguid, idLength, rawId, cose]));
    const clientDataJSON = this.#clientData('webauthn.create', options.challenge, o);
    const attStmt = new Map<string, number | Uint8Array>();
    if (attestation === 'packed') {
      attStmt.set('alg', ES256);
      const sig = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey);
      if (corruptSignature) sig[sig.length - 1] ^= 0x01;
      attStmt.set('sig', sig);
    }
    const attestationObject = isoCBOR.encode(new Map<string, string | Uint8Array | Map<string, number | Uint8Array>>([
      ['fmt', attestation], ['attStmt', attStmt], ['authData', authData],
    ]));
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        authenticatorData: b64url(authData),
        transports: ['internal', 'hybrid'],
        publicKeyAlgorithm: ES256,
        publicKey: b64url(publicKey.export({ format: 'der', type: 'spki' })),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /**
   * navigator.credentials.get(): signs `authenticatorData ‖ SHA-256(clientDataJSON)` with the
   * credential's key; the counter goes up by one per assertion unless `signCount` is given.
   * @throws Error (NotAllowedError) when no held credential matches
   */
  getAssertion(options: PublicKeyCredentialRequestOptionsJSON, o: AssertionOverrides = {}): AuthenticationResponseJSON {
    const rpId = options.rpId ?? this.rpId;
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const credential = [...this.#credentials.values()].find((c) => (o.credentialId
      ? c.id === o.credentialId
      : c.rpId === rpId && (allowed.length === 0 || allowed.includes(c.id))));
    if (!credential) throw new Error('NotAllowedError: no matching credential');
    credential.signCount = o.signCount ?? credential.signCount + 1;
    const authData = this.#authData(o.rpId ?? rpId, o, 0, credential.signCount);
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge, o);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    if (o.corruptSignature) signature[signature.length - 1] ^= 0x01;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** The credential's public key as a JWK (`kty: 'EC', crv: 'P-256', x, y`). */
  publicKeyJwk(credentialId: string): JsonWebKey {
    return this.#held(credentialId).publicKey.export({ format: 'jwk' });
  }

  /** The credential's public key as SPKI PEM text. */
  publicKeyPem(credentialId: string): string {
    return this.#held(credentialId).publicKey.export({ format: 'pem', type: 'spki' }).toString();
  }

  /** The credential's public key as COSE_Key bytes (what a relying party stores). */
  publicKeyCose(credentialId: string): Uint8Array {
    return this.#held(credentialId).cose;
  }

  /** The counter the credential reported last. */
  signCount(credentialId: string): number {
    return this.#held(credentialId).signCount;
  }

  #held(credentialId: string): HeldCredential {
    const credential = this.#credentials.get(credentialId);
    if (!credential) throw new Error(`no credential ${credentialId}`);
    return credential;
  }

  #authData(rpId: string, o: CeremonyOverrides, extraFlags: number, signCount: number, attested?: Buffer): Buffer {
    const flags = (o.userPresent === false ? 0 : FLAG.UP) | (o.userVerified === false ? 0 : FLAG.UV) | this.#flagsBackup | extraFlags;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(signCount);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  #clientData(type: string, challenge: string, o: CeremonyOverrides): Buffer {
    return Buffer.from(JSON.stringify({
      type: o.type ?? type,
      challenge: o.challenge ?? challenge,
      origin: o.origin ?? this.origin,
      crossOrigin: false,
    }));
  }
}

import { Model } from 'objection';

/** Row of `accounts.passkeys`: a WebAuthn credential (COSE public key, counter) of an account. */
export class PasskeyModel extends Model {
  static override tableName = 'accounts.passkeys';
  static override jsonAttributes = ['transports'];
  id!: string;
  accountId!: string;
  /** base64url credential id. */
  credentialId!: string;
  /** COSE_Key bytes. */
  publicKey!: Buffer;
  /** lowercase hex SHA-256 of `publicKey`. */
  fingerprint!: string;
  counter!: number | string;
  transports!: string[];
  name!: string | null;
  aaguid!: string | null;
  deviceType!: string | null;
  backedUp!: boolean;
  createdAt!: Date;
  lastUsedAt!: Date | null;
}

/** Row of `accounts.personal_seals`: the passkey an account bound as its personal seal. */
export class PersonalSealModel extends Model {
  static override tableName = 'accounts.personal_seals';
  static override idColumn = 'accountId';
  accountId!: string;
  passkeyId!: string;
  boundAt!: Date;
}

/** Row of `accounts.activity_log`: sign-ins and passkey lifecycle events of an account. */
export class ActivityLogModel extends Model {
  static override tableName = 'accounts.activity_log';
  id!: string;
  accountId!: string;
  eventType!: string;
  method!: string | null;
  keyId!: string | null;
  keyFingerprint!: string | null;
  ip!: string | null;
  userAgent!: string | null;
  occurredAt!: Date;
}

/** Row of `accounts.webauthn_challenges`: a single-use registration or sign-in challenge. */
export class WebauthnChallengeModel extends Model {
  static override tableName = 'accounts.webauthn_challenges';
  id!: string;
  kind!: 'registration' | 'authentication';
  accountId!: string | null;
  challenge!: string;
  createdAt!: Date;
  expiresAt!: Date;
  consumedAt!: Date | null;
}

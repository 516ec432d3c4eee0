/** Plan keys, lowest first. @see spec 01 "Audit" (retention by plan) */
export const PLAN_KEYS = ['Free', 'Pro', 'ProPlus', 'Business', 'Enterprise'] as const;
export type PlanKey = (typeof PLAN_KEYS)[number];

/** The validated configuration (schemas/config.schema.json) with derived URLs filled in. */
export interface AerieConfig {
  port: number;
  host: string;
  /** `{base_url}`: where Aerie is reached; the WebAuthn RP ID and origin default from it. */
  baseUrl: string;
  loginUrl: string;
  dashboardUrl: string;
  shareUrl: string;
  marketplaceUrl: string;
  /** Folder for embedded data: `pg/`, `outbox/`, `master.key`. */
  dataDir: string;
  /** PostgreSQL server URL; absent means embedded PGlite. */
  databaseUrl?: string;
  /** 32-byte master key, base64/base64url; absent means generated once under `dataDir`. */
  masterKey?: string;
  platformAdmins: string[];
  plugins: { enabled?: string[]; paths: string[] };
  billing: { defaultPlan: PlanKey };
  webauthn: { rpId: string; rpName: string; origins: string[] };
  mail: { from: string; smtpUrl?: string };
  session: { idleTtlSeconds: number; absoluteTtlSeconds: number };
  log: { level: string };
  /** Signing box re-arm key (PKCS#8 PEM or base64url scalar); else the key file from `aerie roost keygen`. */
  roost: { rearmKey?: string };
}

import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock, CryptoService } from '../../core/index.ts';

/** How long a sign-in flow may take from `/login` to the callback, in seconds. */
export const FLOW_TTL_SECONDS = 600;

const TABLE = 'federation.signin_flows';

/** A sign-in in progress, as `/login` left it. */
export interface SigninFlow {
  id: string;
  orgId: string;
  connectionId: string;
  protocol: 'oidc' | 'saml';
  state: string | null;
  nonce: string | null;
  codeVerifier: string | null;
  samlRequestId: string | null;
  /** Set on a flow started to link the IdP identity to this account (docs/api/federation.md). */
  linkAccountId: string | null;
  createdAt: Date;
}

/** Why a callback's flow cannot be used (reported as the sign-in failure `reason`). */
export type FlowRefusal = 'flow_missing' | 'flow_unknown' | 'flow_used' | 'flow_expired';

/**
 * `federation.signin_flows`: one row per `/idp/{slug}/login`, bound to the browser by the SHA-256
 * of a random flow cookie (the cookie itself is never stored), single use and valid
 * {@link FLOW_TTL_SECONDS}. @see docs/api/federation.md "Signing in"
 */
export class SigninFlows {
  constructor(private readonly crypto: CryptoService, private readonly clock: Clock) {}

  /** Stores a flow; answers the cookie value that binds it to the browser. */
  async open(knex: Knex, flow: Omit<SigninFlow, 'id' | 'createdAt'>): Promise<string> {
    const cookie = this.crypto.randomToken(32);
    const now = this.clock.now();
    await knex(TABLE).where('expiresAt', '<', new Date(now.getTime() - 86_400_000)).delete(); // keep the table small
    await knex(TABLE).insert({
      id: randomUUID(), ...flow, bindingHash: this.crypto.sha256Hex(cookie), createdAt: now, expiresAt: new Date(now.getTime() + FLOW_TTL_SECONDS * 1000),
    });
    return cookie;
  }

  /**
   * Consumes the flow the browser's cookie names, in `trx` (locked, so a replay racing it finds it
   * used). @returns the flow, or why it cannot be used.
   */
  async take(trx: Knex.Transaction, cookie: string | undefined): Promise<SigninFlow | FlowRefusal> {
    if (!cookie) return 'flow_missing';
    const row = await trx(TABLE).where({ bindingHash: this.crypto.sha256Hex(cookie) }).forUpdate().first();
    if (!row) return 'flow_unknown';
    if (row.consumedAt) return 'flow_used';
    const now = this.clock.now();
    if (new Date(row.expiresAt) <= now) return 'flow_expired';
    await trx(TABLE).where({ id: row.id }).update({ consumedAt: now });
    return {
      id: row.id, orgId: row.orgId, connectionId: row.connectionId, protocol: row.protocol, state: row.state, nonce: row.nonce,
      codeVerifier: row.codeVerifier, samlRequestId: row.samlRequestId, linkAccountId: row.linkAccountId ?? null, createdAt: new Date(row.createdAt),
    };
  }
}

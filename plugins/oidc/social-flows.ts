import { randomUUID } from 'node:crypto';
import {
  coreRefs, finishOidc, inject, injectable, SigninRefused, startOidc, type Clock, type CryptoService, type Database, type IdpIdentity, type OidcSigninConfig,
} from '../../core/index.ts';
import { oidcErrors } from './errors.ts';
import { oidcInternalRefs } from './internal-refs.ts';
import { refused } from './sign-in-failures.ts';
import type { SocialConnections } from './social-connections.ts';

const FLOWS = 'oidc.social_flows';
/** How long a browser may take at the social provider, in seconds. */
const FLOW_TTL_SECONDS = 600;

/** A browser's trip to a social provider (`oidc.social_flows`), bound to one sign-in. */
export interface FlowRow {
  id: string; orgId: string; interactionUid: string; clientKey: string; provider: string; nonce: string; codeVerifier: string; expiresAt: Date; consumedAt: Date | null;
}

/**
 * The social provider round trips of both sign-ins — the hosted login's (bound to the provider
 * interaction) and the SDK's (bound to `sdk:{id}`): opening one (authorization code with PKCE S256,
 * `state`, `nonce`), finding whose it is from `state`, consuming it once, and exchanging the code for
 * the verified identity.
 * @see docs/api/signin.md "Social sign-in"
 */
@injectable()
export class SocialFlows {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(oidcInternalRefs.socialConnections.id) private readonly connections: SocialConnections,
  ) {}

  /**
   * Stores a flow bound to `interactionUid` (a provider interaction, or `sdk:{id}`); answers the
   * provider's authorization URL. @throws 403 `LOGIN_METHOD_OFF` (`method: social:{provider}`)
   */
  async open(app: { orgId: string; clientKey: string }, appGroupId: string, provider: string, interactionUid: string): Promise<string> {
    const config = await this.connections.config(app.orgId, appGroupId, provider);
    if (!config) throw oidcErrors.methodOff(`social:${provider}`);
    const { url, state, nonce, codeVerifier } = await startOidc(config, this.connections.fetch, this.connections.callbackUrl(app.clientKey, provider));
    const now = this.clock.now();
    await this.db.knex(FLOWS).insert({
      id: randomUUID(), orgId: app.orgId, stateHash: this.crypto.sha256Hex(state), interactionUid, clientKey: app.clientKey,
      provider, nonce, codeVerifier, expiresAt: new Date(now.getTime() + FLOW_TTL_SECONDS * 1000),
    });
    return url;
  }

  /** The `sdk:{id}` a flow of `state` belongs to, when it is an SDK sign-in's (read, not consumed). */
  async sdkFlowOf(state: string | undefined): Promise<string | undefined> {
    if (!state) return undefined;
    const row = (await this.db.knex(FLOWS).where({ stateHash: this.crypto.sha256Hex(state) }).first('interactionUid')) as Pick<FlowRow, 'interactionUid'> | undefined;
    return row?.interactionUid.startsWith('sdk:') ? row.interactionUid : undefined;
  }

  /**
   * Consumes the flow `state` names, if it is this sign-in's.
   * @throws 401 `SOCIAL_SIGN_IN_FAILED` (`flow_unknown`, `flow_used`, `flow_expired`)
   */
  async take(state: string | undefined, expected: { uid: string; clientKey: string; provider: string }): Promise<FlowRow> {
    if (!state) throw oidcErrors.socialFailed('flow_unknown');
    return this.db.transaction(async (trx) => {
      const row = (await trx(FLOWS).where({ stateHash: this.crypto.sha256Hex(state) }).forUpdate().first()) as FlowRow | undefined;
      if (!row || row.interactionUid !== expected.uid || row.clientKey !== expected.clientKey || row.provider !== expected.provider) throw oidcErrors.socialFailed('flow_unknown');
      if (row.consumedAt) throw oidcErrors.socialFailed('flow_used');
      const now = this.clock.now();
      if (new Date(row.expiresAt) <= now) throw oidcErrors.socialFailed('flow_expired');
      await trx(FLOWS).where({ id: row.id }).update({ consumedAt: now });
      return row;
    });
  }

  /**
   * The identity the provider's answer (`query`, the callback's parameters) proves for `flow`: the
   * code exchanged, the ID token verified (signature, `iss`, `aud`, `nonce`, `exp`).
   * @throws a marked failed attempt: 401 `SOCIAL_SIGN_IN_FAILED` with the relying party's reason
   */
  async identity(config: OidcSigninConfig, applicationKey: string, provider: string, query: Record<string, string>, flow: FlowRow): Promise<IdpIdentity> {
    const callback = new URL(this.connections.callbackUrl(applicationKey, provider));
    callback.search = new URLSearchParams(query).toString();
    try {
      return await finishOidc(config, this.connections.fetch, callback, { state: query.state!, nonce: flow.nonce, codeVerifier: flow.codeVerifier });
    } catch (err) {
      if (err instanceof SigninRefused) throw refused(oidcErrors.socialFailed(err.reason), { reason: 'provider_error' });
      throw err;
    }
  }

  /** Deletes flows past their time (the `oidc.sweep` schedule). */
  async purge(): Promise<void> {
    await this.db.knex(FLOWS).where('expiresAt', '<', this.clock.now()).delete();
  }
}

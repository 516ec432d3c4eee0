import type { Clock, Database } from '../../core/index.ts';

const CONSENTS = 'oidc.end_user_consents';

/**
 * The scopes end users allowed third-party applications (`firstParty: false`) on the hosted login's
 * consent page, per end user and client: a later sign-in is granted these without asking again, and
 * asks only for scopes not yet allowed.
 * @see docs/api/signin.md "Consent"
 */
export class EndUserConsents {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** The scopes `endUserId` allowed `clientKey` (`[]` when never asked). */
  async scopes(orgId: string, endUserId: string, clientKey: string): Promise<string[]> {
    const row = (await this.db.knex(CONSENTS).where({ orgId, endUserId, clientKey }).first('scopes')) as { scopes: string[] } | undefined;
    return row?.scopes ?? [];
  }

  /** Adds `scopes` to what `endUserId` allowed `clientKey`. @returns every scope allowed now */
  async allow(orgId: string, endUserId: string, clientKey: string, scopes: readonly string[]): Promise<string[]> {
    const all = [...new Set([...(await this.scopes(orgId, endUserId, clientKey)), ...scopes])];
    await this.db.knex(CONSENTS).insert({ orgId, endUserId, clientKey, scopes: JSON.stringify(all), consentedAt: this.clock.now() })
      .onConflict(['orgId', 'endUserId', 'clientKey']).merge(['scopes', 'consentedAt']);
    return all;
  }
}

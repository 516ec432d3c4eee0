import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';

const CONSENTS = 'oidc.end_user_consents';

/**
 * The scopes `endUserId` allowed `clientKey` on the consent page (`[]` when never asked).
 * @see docs/api/signin.md "Consent"
 */
export async function consentedScopes(db: Database, orgId: string, endUserId: string, clientKey: string): Promise<string[]> {
  const row = (await db.knex(CONSENTS).where({ orgId, endUserId, clientKey }).first('scopes')) as { scopes: string[] } | undefined;
  return row?.scopes ?? [];
}

/** Which sign-in asked: the application's organization, app group and client, and the end user. */
export interface ConsentSubject {
  orgId: string;
  appGroupId: string;
  clientKey: string;
  endUserId: string;
}

/**
 * The end users' answers on the hosted login's consent page for third-party applications
 * (`firstParty: false`, or any application with `prompt=consent`): what they allowed is kept per
 * end user and client, so a later sign-in is granted it without asking again and asks only for
 * scopes not yet allowed; every answer is on the organization's audit chain
 * (`org.end_user.consent_granted`, `org.end_user.consent_denied`).
 * @see docs/api/signin.md "Consent"
 */
@injectable()
export class EndUserConsents {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
  ) {}

  /**
   * Adds `scopes` to what the end user allowed the client, and records the answer on the audit chain
   * (`org.end_user.consent_granted` `{endUserId, appGroupId, clientKey, scopes, added}`: what was
   * asked, and what was not allowed before), in one transaction.
   * @returns every scope allowed now
   */
  async allow(subject: ConsentSubject, scopes: readonly string[]): Promise<string[]> {
    const { orgId, appGroupId, clientKey, endUserId } = subject;
    return this.db.transaction(async (trx) => {
      const row = (await trx(CONSENTS).where({ orgId, endUserId, clientKey }).forUpdate().first('scopes')) as { scopes: string[] } | undefined;
      const before = row?.scopes ?? [];
      const all = [...new Set([...before, ...scopes])];
      await trx(CONSENTS).insert({ orgId, endUserId, clientKey, scopes: JSON.stringify(all), consentedAt: this.clock.now() })
        .onConflict(['orgId', 'endUserId', 'clientKey']).merge(['scopes', 'consentedAt']);
      await this.audit.append(trx, {
        orgId, appGroupId, eventType: 'org.end_user.consent_granted',
        businessData: { endUserId, appGroupId, clientKey, scopes: [...scopes], added: all.filter((s) => !before.includes(s)) },
      });
      return all;
    });
  }

  /** Records a Deny (`org.end_user.consent_denied` `{endUserId, appGroupId, clientKey, scopes}`); nothing is granted or kept. */
  async deny(subject: ConsentSubject, scopes: readonly string[]): Promise<void> {
    const { orgId, appGroupId, clientKey, endUserId } = subject;
    await this.audit.append(this.db.knex, {
      orgId, appGroupId, eventType: 'org.end_user.consent_denied', businessData: { endUserId, appGroupId, clientKey, scopes: [...scopes] },
    });
  }
}

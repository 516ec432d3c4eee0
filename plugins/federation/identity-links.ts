import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

const TABLE = 'federation.identity_links';

/** An IdP identity linked to an Aerie account (`federation.identity_links`). */
export interface IdentityLink {
  id: string;
  orgId: string;
  /** The OpenID issuer or the SAML IdP entity id. */
  issuer: string;
  subject: string;
  accountId: string;
  email: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/**
 * `federation.identity_links`: which IdP identity (organization, issuer, subject) signs in as which
 * Aerie account. Rows are written only by a link flow the account's owner started with a seal.
 * Every read and write names the organization or the account.
 * @see docs/api/federation.md "Linking an Aerie account"
 */
export class IdentityLinks {
  /** The link of this identity in `orgId`, or `undefined`. */
  async find(db: Knex | Knex.Transaction, orgId: string, issuer: string, subject: string): Promise<IdentityLink | undefined> {
    return db(TABLE).where({ orgId, issuer, subject }).first();
  }

  /**
   * Links the identity to `accountId`, replacing the account's earlier link to the same issuer in
   * `orgId` (one identity per account and IdP). The caller has checked that the identity is not
   * another account's.
   */
  async put(trx: Knex.Transaction, link: Pick<IdentityLink, 'orgId' | 'issuer' | 'subject' | 'accountId' | 'email'>, now: Date): Promise<{ link: IdentityLink; replaced: string | null }> {
    const prior = (await trx(TABLE).where({ orgId: link.orgId, accountId: link.accountId, issuer: link.issuer }).forUpdate().first()) as IdentityLink | undefined;
    if (prior) await trx(TABLE).where({ id: prior.id }).delete();
    const [row] = (await trx(TABLE).insert({ id: randomUUID(), ...link, createdAt: now, lastUsedAt: now }).returning('*')) as IdentityLink[];
    return { link: row!, replaced: prior?.id ?? null };
  }

  /** Records a sign-in through the link. */
  async touch(trx: Knex.Transaction, id: string, now: Date): Promise<void> {
    await trx(TABLE).where({ id }).update({ lastUsedAt: now });
  }

  /** The account's links, newest first. */
  async forAccount(db: Knex, accountId: string): Promise<IdentityLink[]> {
    return db(TABLE).where({ accountId }).orderBy('createdAt', 'desc').orderBy('id');
  }

  /** Removes one of the account's links. @returns the removed link, or `undefined` (none such for this account). */
  async remove(trx: Knex.Transaction, accountId: string, id: string): Promise<IdentityLink | undefined> {
    const [row] = (await trx(TABLE).where({ accountId, id }).delete().returning('*')) as IdentityLink[];
    return row;
  }
}

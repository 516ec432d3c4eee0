import type { Knex } from 'knex';
import { SigninRefused, type IdpIdentity } from '../../core/index.ts';
import type { AccountRecord, AccountsService } from '../accounts/api.ts';
import type { MembershipsService } from '../orgs/api.ts';
import type { SigninConnection } from './connections.service.ts';
import type { IdentityLinks } from './identity-links.ts';

/**
 * A sign-in the identity provider vouched for, refused by Aerie's rules of whom an organization's IdP
 * may sign in (not a protocol failure). `reason` is one of {@link DENIAL_REASONS}; recorded as
 * `org.federation.sign_in_refused`.
 */
export class SigninDenied extends SigninRefused {}

/** Why {@link SigninPolicy} refuses; each has its own advice on the refusal page. @see docs/api/federation.md */
export const DENIAL_REASONS = [
  'email_missing', 'email_unverified', 'account_exists', 'not_a_member', 'membership_inactive', 'invitation_pending',
  'platform_administrator', 'identity_linked_elsewhere', 'link_not_member',
] as const;
export type DenialReason = typeof DENIAL_REASONS[number];

const deny = (reason: DenialReason) => new SigninDenied(reason);

/** Whom the identity signs in as, and how Aerie found them. */
export interface SigninDecision {
  account: AccountRecord;
  membershipId: string;
  /** A membership made now (JIT). */
  joined: boolean;
  /** `link`: a linked Aerie account; `directory`: the organization's own account for the address; `jit`: made now. */
  via: 'link' | 'directory' | 'jit';
  /** The link used or made (with `via: 'link'`). */
  linkId?: string;
  /** A link flow replaced the account's earlier link to the same IdP: its id. */
  replacedLinkId?: string | null;
}

/**
 * The rules of who an organization's identity provider may sign in (docs/api/federation.md "Who is
 * signed in"). A tenant's IdP vouches only inside its tenant:
 * - an **Aerie account** (one Aerie verified itself) is signed into only through a link its owner
 *   made with a seal; never by a matching address, and never a platform administrator's;
 * - otherwise the address names the **organization's own account** (one its IdP or SCIM made,
 *   federated to it), created at sign-in when `allow_jit` is on and no Aerie account has the address.
 * Every outcome needs an active membership of the organization.
 */
export class SigninPolicy {
  constructor(
    private readonly accounts: AccountsService,
    private readonly memberships: MembershipsService,
    private readonly links: IdentityLinks,
  ) {}

  /**
   * The member `identity` signs in as.
   * @throws SigninDenied with a {@link DenialReason}
   */
  async decide(connection: SigninConnection, issuer: string, identity: IdpIdentity, trx: Knex.Transaction, now: Date): Promise<SigninDecision> {
    const link = await this.links.find(trx, connection.orgId, issuer, identity.subject);
    if (link) {
      const account = await this.accounts.findById(link.accountId, trx);
      if (!account) throw deny('not_a_member');
      if (this.accounts.isPlatformAdmin(account)) throw deny('platform_administrator');
      const membershipId = await this.activeMembership(connection.orgId, account.id, trx);
      await this.links.touch(trx, link.id, now);
      return { account, membershipId, joined: false, via: 'link', linkId: link.id };
    }
    if (!identity.email) throw deny('email_missing');
    if (!identity.emailVerified) throw deny('email_unverified');
    const own = await this.accounts.findFederated(connection.orgId, identity.email, trx);
    if (own) {
      const membership = await this.memberships.findByAccount(connection.orgId, own.id, trx);
      if (membership || !connection.allowJit) return { account: own, membershipId: await this.activeMembership(connection.orgId, own.id, trx), joined: false, via: 'directory' };
      const joined = await this.memberships.join(connection.orgId, own.id, 'Member', trx);
      return { account: own, membershipId: joined.id, joined: true, via: 'jit' };
    }
    // The address is an Aerie account's: only its owner may let this IdP in, by linking.
    if (await this.accounts.findByEmail(identity.email, trx)) throw deny('account_exists');
    if (!connection.allowJit) throw deny('not_a_member');
    const { account } = await this.accounts.ensureFederated(connection.orgId, identity.email, identity.name, trx);
    const joined = await this.memberships.join(connection.orgId, account.id, 'Member', trx);
    return { account, membershipId: joined.id, joined: true, via: 'jit' };
  }

  /**
   * A link flow's callback: links `identity` to the account that started the flow (an active member
   * of the organization, not a platform administrator, not an account the IdP itself made) and
   * signs it in.
   * @throws SigninDenied (`link_not_member`, `platform_administrator`, `identity_linked_elsewhere`)
   */
  async link(connection: SigninConnection, issuer: string, identity: IdpIdentity, accountId: string, trx: Knex.Transaction, now: Date): Promise<SigninDecision> {
    const account = await this.accounts.findById(accountId, trx);
    if (!account || account.federatedOrgId) throw deny('link_not_member');
    if (this.accounts.isPlatformAdmin(account)) throw deny('platform_administrator');
    const membership = await this.memberships.findByAccount(connection.orgId, account.id, trx);
    if (membership?.status !== 'active') throw deny('link_not_member');
    const taken = await this.links.find(trx, connection.orgId, issuer, identity.subject);
    if (taken && taken.accountId !== account.id) throw deny('identity_linked_elsewhere');
    const { link, replaced } = await this.links.put(trx, { orgId: connection.orgId, issuer, subject: identity.subject, accountId: account.id, email: identity.email }, now);
    return { account, membershipId: membership.id, joined: false, via: 'link', linkId: link.id, replacedLinkId: replaced };
  }

  /** The active membership's id. @throws SigninDenied `invitation_pending`, `membership_inactive`, `not_a_member` */
  private async activeMembership(orgId: string, accountId: string, trx: Knex.Transaction): Promise<string> {
    const membership = await this.memberships.findByAccount(orgId, accountId, trx);
    if (membership?.status === 'active') return membership.id;
    if ((membership?.status as string | undefined) === 'invited') throw deny('invitation_pending');
    throw deny(membership ? 'membership_inactive' : 'not_a_member');
  }
}

import { coreRefs, inject, injectable, type AuditService, type Clock, type Database, isUuid } from '../../core/index.ts';
import { accountsRefs, type AccountsService } from '../accounts/api.ts';
import { membersRefs, type InvitationsService, type MembersService } from '../members/api.ts';
import { orgsRefs, type MembershipsService, type OrganizationsService } from '../orgs/api.ts';
import { scimRefs } from './internal-refs.ts';
import { ScimConflict, writeUserAttributes } from './user-attributes.ts';
import { isEmailAddress, type UserInput } from './user-input.ts';
import { applyPatch } from './user-patch.ts';
import type { ScimUser, ScimUsersService } from './users.service.ts';

export { ScimConflict } from './user-attributes.ts';

/** Aerie keeps one email per User, the account's address: provisioning changes it only for the organization's own accounts. */
const WORK_EMAIL = "The work email (emails[type eq \"work\"].value) is the address of the person's own Aerie account: only they change it.";
const USER_NAME_REQUIRED = 'userName is required.';
const notFound = (id: string) => new ScimConflict(404, `No User ${id}.`);
/** SCIM's actor (the token) as Aerie's members rules see it: an administrator, never the Owner. */
const SCIM_ACTOR = { role: 'Admin' };

/**
 * Provisioning writes on Users: create (the organization's own account for a new address, or an
 * invitation to an Aerie account's owner — see {@link ScimUsersWriter.create} — and a membership of
 * role Member), replace, patch, deactivate (`active: false` suspends; `true`
 * re-activates) and delete (revokes). Membership changes go through the orgs and members plugins'
 * services, so their rules and audit events apply; the identity provider's attributes
 * (`userName`, `externalId`, name, display name) live in `scim.user_attributes`. The Owner cannot be
 * deactivated or deleted by provisioning.
 * @see docs/api/scim.md "Provisioning"
 */
@injectable()
export class ScimUsersWriter {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
    @inject(membersRefs.members.id) private readonly members: MembersService,
    @inject(membersRefs.invitations.id) private readonly invitations: InvitationsService,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(scimRefs.users.id) private readonly users: ScimUsersService,
  ) {}

  /**
   * POST /Users. The account's address is the work email (else the primary one), else the
   * `userName` when it is an email address; `userName` is kept as sent. An address with no Aerie
   * account gets the organization's own account (federated to it, signing in only through its IdP)
   * and an active (or, with `active: false`, suspended) membership. An address an Aerie account has
   * is never joined on the token's word: the membership is `invited` (the User answers `active:
   * false`) and the person is mailed an invitation they accept with their own account.
   * @throws ScimConflict 400 `invalidValue` (no userName; neither an email in `emails` nor a userName
   *   that is one), 409 `uniqueness` (already a member, or the userName or externalId is taken).
   */
  async create(orgId: string, slug: string, input: UserInput, tokenId: string): Promise<ScimUser> {
    if (!input.userName) throw new ScimConflict(400, USER_NAME_REQUIRED, 'invalidValue');
    const address = input.email ?? (isEmailAddress(input.userName) ? input.userName : undefined);
    if (!address) {
      throw new ScimConflict(400, `userName ${JSON.stringify(input.userName)} is not an email address and emails names no work or primary email: `
        + "one of them is the address of the User's account.", 'invalidValue');
    }
    const email = address.toLowerCase();
    let mail = async () => {};
    const org = await this.orgs.findById(orgId);
    const id = await this.db.transaction(async (trx) => {
      const own = await this.accounts.findFederated(orgId, email, trx);
      const person = own ? undefined : await this.accounts.findByEmail(email, trx);
      const account = own ?? person ?? (await this.accounts.ensureFederated(orgId, email, input.displayName ?? null, trx)).account;
      const existing = await this.memberships.findByAccount(orgId, account.id, trx);
      if (existing && existing.status !== 'revoked') throw new ScimConflict(409, `${email} is already a User of this organization.`, 'uniqueness');
      let membership: { id: string };
      if (person) {
        membership = await this.memberships.invite(orgId, account.id, trx);
        mail = await this.invitations.inviteProvisioned(trx, { id: orgId, name: org?.name ?? slug }, email, tokenId);
      } else {
        membership = await this.memberships.join(orgId, account.id, 'Member', trx);
        if (input.active === false) await this.memberships.setStatus(orgId, membership.id, 'suspended', trx);
      }
      await writeUserAttributes(trx, this.users, this.clock.now(), orgId, membership.id, input, true);
      await this.audit.append(trx, {
        orgId, eventType: 'org.member.provisioned',
        businessData: {
          connectedIdId: membership.id, accountId: account.id, active: !person && input.active !== false, invited: !!person, via: 'scim', scimTokenId: tokenId,
        },
      });
      return membership.id;
    });
    await mail();
    return (await this.users.get(orgId, slug, id))!;
  }

  /**
   * PUT (every kept attribute replaced: absent ones cleared; `userName` required) or PATCH (only
   * those set). `userName` may change (unique in the organization); the work email too for the
   * organization's own (federated) account, never for an Aerie account.
   * @throws ScimConflict 404, 400 `invalidValue` (PUT without userName), 400 `mutability` (a new
   *   work email of an Aerie account; deactivating the Owner), 409 `uniqueness` (userName,
   *   externalId, a work email another User or an Aerie account has).
   */
  async update(orgId: string, slug: string, id: string, input: UserInput, mode: 'replace' | 'patch', tokenId: string): Promise<ScimUser> {
    const target = isUuid(id) ? await this.memberships.findById(orgId, id) : undefined;
    if (!target || target.status === 'revoked') throw notFound(id);
    if (mode === 'replace' && !input.userName) throw new ScimConflict(400, USER_NAME_REQUIRED, 'invalidValue');
    const current = (await this.users.get(orgId, slug, id))!;
    const newEmail = input.email !== undefined && input.email.toLowerCase() !== current.emails[0]!.value.toLowerCase() ? input.email.toLowerCase() : undefined;
    const account = newEmail ? await this.accounts.findById(target.accountId) : undefined;
    // The organization's own account follows its directory; an Aerie account's address is its owner's.
    if (newEmail && account?.federatedOrgId !== orgId) throw new ScimConflict(400, WORK_EMAIL, 'mutability');
    if (newEmail && (await this.accounts.findByEmail(newEmail))) {
      throw new ScimConflict(409, `${newEmail} is an Aerie account's address: provision it as a User of its own (its owner is invited).`, 'uniqueness');
    }
    if (input.active === false && target.role === 'Owner') throw new ScimConflict(400, 'The organization Owner cannot be deactivated by provisioning.', 'mutability');
    const wantsActive = input.active ?? target.status === 'active';
    await this.db.transaction(async (trx) => {
      const changed = await writeUserAttributes(trx, this.users, this.clock.now(), orgId, id, input, mode === 'replace');
      if (newEmail) {
        if (!(await this.accounts.changeFederatedEmail(orgId, target.accountId, newEmail, trx))) throw new ScimConflict(409, `${newEmail} is another User's address.`, 'uniqueness');
        changed.push('email');
      }
      if (changed.length > 0) {
        // Names of what changed, never values (they may be personal data the chain keeps for years).
        await this.audit.append(trx, { orgId, eventType: 'org.scim_user.updated', businessData: { connectedIdId: id, accountId: target.accountId, changed, scimTokenId: tokenId } });
      }
      if (wantsActive && target.status === 'suspended') {
        await this.memberships.setStatus(orgId, id, 'active', trx);
        await this.audit.append(trx, { orgId, eventType: 'org.member.reactivated', businessData: { connectedIdId: id, accountId: target.accountId, via: 'scim', scimTokenId: tokenId } });
      }
    });
    // Suspension goes through the members plugin (its rules and audit event), after the attributes.
    if (!wantsActive && target.status === 'active') await this.members.suspend(orgId, id, SCIM_ACTOR);
    return (await this.users.get(orgId, slug, id))!;
  }

  /**
   * PATCH: the operations applied to the User as it stands (its `emails[…]` filters are evaluated
   * on it), then written as {@link update} does.
   * @throws ScimConflict 404, 400 (the operations' refusal), and those of {@link update}
   */
  async patch(orgId: string, slug: string, id: string, body: unknown, tokenId: string): Promise<ScimUser> {
    const current = await this.users.get(orgId, slug, id);
    if (!current) throw notFound(id);
    const input = applyPatch(body, { id: current.id, email: current.emails[0]!.value });
    if ('scimType' in input) throw new ScimConflict(input.status, input.detail, input.scimType);
    return this.update(orgId, slug, id, input, 'patch', tokenId);
  }

  /**
   * DELETE: revokes the membership (role assignments dropped); an `invited` one's open invitation is
   * cancelled with it, so it can no longer be accepted. @throws ScimConflict 404, 400 for the Owner.
   */
  async delete(orgId: string, id: string): Promise<void> {
    const target = isUuid(id) ? await this.memberships.findById(orgId, id) : undefined;
    if (!target || target.status === 'revoked') throw notFound(id);
    if (target.role === 'Owner') throw new ScimConflict(400, 'The organization Owner cannot be deleted by provisioning.', 'mutability');
    if (target.status !== 'invited') return void (await this.members.revoke(orgId, id, SCIM_ACTOR));
    const account = await this.accounts.findById(target.accountId);
    await this.db.transaction(async (trx) => {
      await this.memberships.setStatus(orgId, id, 'revoked', trx);
      if (account) await this.invitations.cancelOpen(trx, orgId, account.email);
      await this.audit.append(trx, { orgId, eventType: 'org.member.revoked', businessData: { connectedIdId: id, accountId: target.accountId, via: 'scim' } });
    });
  }
}

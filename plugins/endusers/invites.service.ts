import { randomUUID } from 'node:crypto';
import {
  coreRefs, inject, injectable, type AerieConfig, type AuditService, type Clock, type CryptoService, type Database, type Mailer,
} from '../../core/index.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { END_USER_COLUMNS, END_USERS, INVITES, type EndUserRow } from './end-user-record.ts';
import { endUsersErrors } from './errors.ts';
import { inviteMail } from './invite-mail.ts';
import type { SendInvitesJob } from './invite-job.ts';

/** How long an invite token works: 7 days. */
export const INVITE_TTL_SECONDS = 7 * 24 * 3600;
/** Random bytes of an invite token: 256 bits. */
const INVITE_TOKEN_BYTES = 32;

interface InviteRow {
  id: string;
  orgId: string;
  endUserId: string;
  appGroupId: string | null;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

const INVITE_COLUMNS = ['id', 'orgId', 'endUserId', 'appGroupId', 'expiresAt', 'usedAt', 'revokedAt'] as const;

/** What a verified invite answers. @see docs/api/endusers.md "Verify an invite" */
export interface VerifiedInvite {
  endUserId: string;
  orgSlug: string;
  appGroupId: string | null;
  email: string;
}

/**
 * End-user invites: the `endusers.send-invites` job mails each still-`Pending` end user a new
 * single-use token (kept as SHA-256; the older unused ones of that end user stop working), and
 * `verify` spends a token and makes its end user `Active` with a verified email.
 * @see docs/api/endusers.md "Invitations"
 */
@injectable()
export class EndUserInvites {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(orgsRefs.organizations.id) private readonly organizations: OrganizationsService,
  ) {}

  /**
   * The job's handler. Idempotent per job: an end user whose invite of this job was mailed is
   * skipped when the job runs again; one whose mail did not go out gets a fresh token.
   */
  async send(jobId: string, job: SendInvitesJob): Promise<void> {
    const org = await this.organizations.findById(job.orgId);
    if (!org) return;
    const pending: Array<Pick<EndUserRow, 'id' | 'email'>> = await this.db.knex(END_USERS)
      .where({ orgId: job.orgId, status: 'Pending' }).whereIn('id', job.endUserIds).select('id', 'email');
    const sent: Array<{ endUserId: string }> = await this.db.knex(INVITES).where({ orgId: job.orgId, jobId }).whereNotNull('sentAt').select('endUserId');
    const mailed = new Set(sent.map((r) => r.endUserId));
    for (const user of pending.filter((u) => !mailed.has(u.id))) {
      const token = this.crypto.randomToken(INVITE_TOKEN_BYTES);
      const now = this.clock.now();
      const expiresAt = new Date(now.getTime() + INVITE_TTL_SECONDS * 1000);
      await this.db.transaction(async (trx) => {
        await trx(INVITES).where({ orgId: job.orgId, endUserId: user.id }).whereNot({ jobId }).whereNull('usedAt').whereNull('revokedAt').update({ revokedAt: now });
        await trx(INVITES)
          .insert({ id: randomUUID(), orgId: job.orgId, endUserId: user.id, appGroupId: job.appGroupId, jobId, tokenHash: this.crypto.sha256Hex(token), expiresAt, createdAt: now })
          .onConflict(['jobId', 'endUserId']).merge(['tokenHash', 'expiresAt']);
      });
      await this.mail.send(inviteMail({ to: user.email, orgName: org.name, token, expiresAt, loginUrl: this.config.loginUrl }));
      await this.db.knex(INVITES).where({ orgId: job.orgId, jobId, endUserId: user.id }).update({ sentAt: this.clock.now() });
    }
  }

  /**
   * Spends an invite token: its end user becomes `Active` with a verified email (a `Suspended` one
   * stays suspended: 409). @throws 400 `INVITE_INVALID`, 410 `INVITE_USED` / `INVITE_EXPIRED`,
   *   409 `END_USER_STATUS_CONFLICT`
   */
  async verify(token: string): Promise<VerifiedInvite> {
    const now = this.clock.now();
    const verified = await this.db.transaction(async (trx) => {
      const invite = (await trx(INVITES).where({ tokenHash: this.crypto.sha256Hex(token) }).forUpdate().first(...INVITE_COLUMNS)) as InviteRow | undefined;
      if (!invite || invite.revokedAt) throw endUsersErrors.inviteInvalid();
      if (invite.usedAt) throw endUsersErrors.inviteUsed();
      if (new Date(invite.expiresAt).getTime() <= now.getTime()) throw endUsersErrors.inviteExpired();
      const user = (await trx(END_USERS).where({ orgId: invite.orgId, id: invite.endUserId }).forUpdate().first(...END_USER_COLUMNS)) as EndUserRow;
      if (user.status === 'Suspended') throw endUsersErrors.statusConflict(user.status, 'verified');
      await trx(INVITES).where({ orgId: invite.orgId, id: invite.id }).update({ usedAt: now });
      await trx(END_USERS).where({ orgId: invite.orgId, id: user.id }).update({ status: 'Active', emailVerifiedAt: user.emailVerifiedAt ?? now, emailProvenAt: now, updatedAt: now });
      await this.audit.append(trx, {
        orgId: invite.orgId, actor: { type: 'system', id: 'system' }, eventType: 'org.end_user.verified',
        businessData: { endUserId: user.id, email: user.email, previousStatus: user.status, inviteId: invite.id },
      });
      return { endUserId: user.id, orgId: invite.orgId, appGroupId: invite.appGroupId, email: user.email };
    });
    const org = await this.organizations.findById(verified.orgId);
    return { endUserId: verified.endUserId, orgSlug: org?.slug ?? '', appGroupId: verified.appGroupId, email: verified.email };
  }
}

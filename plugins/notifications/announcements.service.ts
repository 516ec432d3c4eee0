import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { orgsRefs, type MembershipsService } from '../orgs/api.ts';
import { notificationsErrors } from './errors.ts';
import { fanOut } from './fan-out.ts';
import { notificationsInternalRefs } from './internal-refs.ts';
import type { OrgAccess } from './org-access.ts';
import { ANNOUNCEMENTS_TABLE, ATTACHMENTS_TABLE, toAttachmentDto, type AttachmentDto, type AttachmentRow } from './tables.ts';

/** What an Owner or Admin sends. */
export interface AnnouncementInput {
  orgSlug: string;
  title: string;
  body: string;
  link?: string;
  /** Membership ids; every active member (the sender included) when absent. */
  recipientConnectedIds?: string[];
  attachmentIds?: string[];
}

/** A sent announcement as answered. */
export interface AnnouncementDto {
  id: string;
  orgId: string;
  title: string;
  recipientCount: number;
  attachments: AttachmentDto[];
  createdAt: string;
}

/**
 * Organization announcements: one announcement fans out to its recipients' notifications (category
 * `Org`, one `AnnouncementId`) in ONE `insert … select` statement, with its attachments bound to it
 * and the send audited, all in one transaction.
 * @see docs/api/notifications.md "Send an announcement"
 */
@injectable()
export class AnnouncementsService {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
    @inject(notificationsInternalRefs.orgAccess.id) private readonly access: OrgAccess,
  ) {}

  /**
   * @throws 404 `NOT_FOUND` (organization, a recipient or an attachment not of this organization),
   *   403 `PERMISSION_DENIED` (not Owner or Admin), 409 `ATTACHMENT_ALREADY_SENT`
   */
  async send(senderAccountId: string, input: AnnouncementInput): Promise<AnnouncementDto> {
    const org = await this.access.announcerOf(input.orgSlug, senderAccountId);
    const selected = input.recipientConnectedIds && [...new Set(input.recipientConnectedIds)];
    const attachmentIds = [...new Set(input.attachmentIds ?? [])];
    const id = randomUUID();
    const now = this.clock.now();
    return this.db.transaction(async (trx) => {
      await trx(ANNOUNCEMENTS_TABLE).insert({
        id, orgId: org.id, senderAccountId, recipientSelection: selected ? 'selected' : 'all', recipientCount: 0, createdAt: now,
      } as never);
      const attachments = await this.bindAttachments(trx, org.id, id, attachmentIds);
      const recipients = this.memberships.activeAccountsQuery(org.id, selected ? { ids: selected } : {}, trx);
      const recipientCount = await fanOut(trx, recipients, {
        orgId: org.id, category: 'Org', title: input.title, body: input.body, link: input.link ?? null, announcementId: id, createdAt: now,
      });
      if (selected && recipientCount !== selected.length) throw notificationsErrors.unknownRecipient();
      await trx(ANNOUNCEMENTS_TABLE).where({ id }).update({ recipientCount } as never);
      await this.audit.append(trx, {
        orgId: org.id, eventType: 'org.notification.sent',
        businessData: {
          announcementId: id, title: input.title, recipientCount, recipientSelection: selected ? 'selected' : 'all',
          ...(selected ? { recipientConnectedIds: selected } : {}), attachmentIds: attachments.map((a) => a.id),
        },
      });
      return { id, orgId: org.id, title: input.title, recipientCount, attachments, createdAt: now.toISOString() };
    });
  }

  /** Binds the organization's unsent attachments `ids` to the announcement, in one statement. */
  private async bindAttachments(trx: Knex.Transaction, orgId: string, announcementId: string, ids: string[]): Promise<AttachmentDto[]> {
    if (ids.length === 0) return [];
    const rows = await trx<AttachmentRow>(ATTACHMENTS_TABLE).where({ orgId }).whereIn('id', ids).select('id', 'announcementId');
    if (rows.length !== ids.length) throw notificationsErrors.attachmentNotFound();
    if (rows.some((r) => r.announcementId)) throw notificationsErrors.attachmentAlreadySent();
    const bound: AttachmentRow[] = await trx<AttachmentRow>(ATTACHMENTS_TABLE).where({ orgId }).whereIn('id', ids).whereNull('announcementId')
      .update({ announcementId } as never).returning('*');
    if (bound.length !== ids.length) throw notificationsErrors.attachmentAlreadySent();
    return bound.map(toAttachmentDto);
  }
}

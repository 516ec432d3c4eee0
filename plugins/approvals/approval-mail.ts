import { plainName, type MailMessage } from '../../core/index.ts';

/**
 * The mail to an approver whose stamp a document now awaits (or to a report's recipient): the
 * organization, the document number and title, and where to open it.
 * @see docs/api/approvals.md "Mail"
 */
export function approvalMail(input: { to: string; orgName: string; documentNumber: string; title: string; requester: string; report: boolean; dashboardUrl: string }): MailMessage {
  const link = `${input.dashboardUrl.replace(/\/$/, '')}/approvals/${encodeURIComponent(input.documentNumber)}`;
  const title = plainName(input.title);
  return {
    to: input.to,
    subject: input.report ? `Report ${input.documentNumber}: ${title}` : `Approval requested: ${input.documentNumber} ${title}`,
    text: [
      input.report
        ? `${plainName(input.requester)} sent you the report "${title}" (${input.documentNumber}) in ${plainName(input.orgName)}.`
        : `${plainName(input.requester)} asks for your stamp on "${title}" (${input.documentNumber}) in ${plainName(input.orgName)}.`,
      '',
      `Open it here: ${link}`,
      '',
    ].join('\n'),
    headers: { 'X-Aerie-Template': input.report ? 'approval-report' : 'approval-request' },
  };
}

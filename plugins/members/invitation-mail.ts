import { plainName, type MailMessage } from '../../core/index.ts';

/**
 * The invitation mail: the organization, the proposed role, the expiry, and the single-use token,
 * both as a dashboard link (`{dashboard_url}/invitation?token=…`) and on its own line for clients
 * that paste it into `POST /api/org/invitation/accept`.
 * @see docs/api/members.md "The invitation mail"
 */
export function invitationMail(input: {
  to: string; orgName: string; roleName: string; token: string; expiresAt: Date; dashboardUrl: string; director: boolean;
}): MailMessage {
  const link = `${input.dashboardUrl.replace(/\/$/, '')}/invitation?token=${encodeURIComponent(input.token)}`;
  // Names are plain text: a control or bidi character stored before names were checked cannot
  // break a line or reorder the text around it.
  const org = plainName(input.orgName);
  const role = plainName(input.roleName);
  const what = input.director ? `to join the board of ${org} as ${role}` : `to join ${org} as ${role}`;
  return {
    to: input.to,
    subject: `You are invited to join ${org} on Aerie`,
    text: [
      `You have been invited ${what}.`,
      '',
      `Accept or decline here: ${link}`,
      '',
      `Invitation token: ${input.token}`,
      '',
      `The invitation is valid until ${input.expiresAt.toISOString()} and works once.`,
      'If you did not expect it, ignore this message.',
      '',
    ].join('\n'),
    headers: { 'X-Aerie-Template': 'org-invitation' },
  };
}

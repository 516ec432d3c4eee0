import type { MailMessage } from '../../core/index.ts';

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
  const what = input.director ? `to join the board of ${input.orgName} as ${input.roleName}` : `to join ${input.orgName} as ${input.roleName}`;
  return {
    to: input.to,
    subject: `You are invited to join ${input.orgName} on Aerie`,
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

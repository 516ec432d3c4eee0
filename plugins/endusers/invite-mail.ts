import { plainName, type MailMessage } from '../../core/index.ts';

/**
 * The end-user invite mail: a magic link to the hosted page (`{login_url}/enduser/invite?token=…`,
 * which posts the token to `POST /api/enduser/verify-invite`), the token on its own line, and the expiry.
 * @see docs/api/endusers.md "Invitations"
 */
export function inviteMail(input: { to: string; orgName: string; token: string; expiresAt: Date; loginUrl: string }): MailMessage {
  const link = `${input.loginUrl.replace(/\/$/, '')}/enduser/invite?token=${encodeURIComponent(input.token)}`;
  const org = plainName(input.orgName);
  return {
    to: input.to,
    subject: `${org} invites you to sign in`,
    text: [
      `${org} has given you access. Confirm your email address here: ${link}`,
      '',
      `Invite token: ${input.token}`,
      '',
      `The link is valid until ${input.expiresAt.toISOString()} and works once.`,
      'If you did not expect it, ignore this message.',
      '',
    ].join('\n'),
    headers: { 'X-Aerie-Template': 'enduser-invite' },
  };
}

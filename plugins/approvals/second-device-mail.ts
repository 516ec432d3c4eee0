import { plainName, type MailMessage } from '../../core/index.ts';

/**
 * The mail carrying the one-time second-device link (rule 7): what was stamped, the decision, when
 * the link dies, and the link itself — the token travels in the URL fragment, which browsers never
 * send to a server, and the page hands it to `POST /api/approvals/second-device/options`.
 * @see docs/api/approvals.md "Second-device confirmation"
 */
export function secondDeviceMail(input: {
  to: string; orgName: string; documentNumber: string; title: string; decision: 'approve' | 'reject'; token: string; expiresAt: Date; dashboardUrl: string;
}): MailMessage {
  const link = `${input.dashboardUrl.replace(/\/$/, '')}/approvals/second-device#${input.token}`;
  const verb = input.decision === 'approve' ? 'approval' : 'rejection';
  return {
    to: input.to,
    subject: `Confirm your ${verb} of ${input.documentNumber} on your phone`,
    text: [
      `You stamped "${plainName(input.title)}" (${input.documentNumber}) in ${plainName(input.orgName)} with the decision "${input.decision}".`,
      'Your organization asks you to confirm it with a passkey on a second device, such as your phone.',
      '',
      `Open this link on that device (it works once, until ${input.expiresAt.toISOString()}):`,
      link,
      '',
      'If you did not stamp this document, open the link and choose "This was not me".',
      '',
    ].join('\n'),
    headers: { 'X-Aerie-Template': 'approval-second-device' },
  };
}

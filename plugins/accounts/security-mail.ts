import type { Mailer } from '../../core/index.ts';
import { shortFingerprint } from './relying-party.ts';

/**
 * Mails the security notice for a passkey added to or removed from an account: the key id and the
 * first 16 hex characters of SHA-256 over the credential public key (COSE_Key bytes).
 * Binding a personal seal (`POST /api/v1/seals`) sends none.
 * @param change - `added` (`api/passkey/add`) or `removed`.
 * @throws Error when SMTP refuses (callers send after commit and log the failure).
 * @see docs/audit.md
 */
export async function sendPasskeySecurityMail(
  mail: Mailer,
  input: { to: string; change: 'added' | 'removed'; credentialId: string; fingerprint: string; at: Date; securityUrl: string },
): Promise<void> {
  const fingerprint = shortFingerprint(input.fingerprint);
  const verb = input.change === 'added' ? 'added to' : 'removed from';
  await mail.send({
    to: input.to,
    subject: `Aerie: a passkey was ${verb} your account`,
    text: [
      `A passkey was ${verb} your Aerie account (${input.to}).`,
      '',
      `  Key id:       ${input.credentialId}`,
      `  Fingerprint:  ${fingerprint}  (SHA-256 of the credential public key, first 16 hex characters)`,
      `  When:         ${input.at.toISOString()}`,
      '',
      `If this was not you, review your passkeys at ${input.securityUrl} and sign out everywhere.`,
      '',
    ].join('\n'),
    headers: {
      'X-Aerie-Template': input.change === 'added' ? 'passkey-added' : 'passkey-removed',
      'X-Aerie-Key-Id': input.credentialId,
      'X-Aerie-Key-Fingerprint': fingerprint,
    },
  });
}

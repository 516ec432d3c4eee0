import { createHash } from 'node:crypto';
import { mailsTo } from '../../helpers/mail.ts';
import type { TestAerie, TestResponse } from '../../helpers/harness.ts';

/** SHA-256 of a UTF-8 string as lowercase hex, computed independently of the code under test. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** `POST /api/v1/users/registration/email`. */
export function register(aerie: TestAerie, email: string, displayName?: string): Promise<TestResponse> {
  return aerie.request('POST', '/api/v1/users/registration/email', { body: { email, ...(displayName !== undefined ? { displayName } : {}) } });
}

/** `POST /api/v1/users/verification/email`. */
export function verify(aerie: TestAerie, email: string, code: unknown): Promise<TestResponse> {
  return aerie.request('POST', '/api/v1/users/verification/email', { body: { email, code } });
}

/** Registers `email` and returns the code mailed for it. @throws Error when the answer is not 202. */
export async function requestCode(aerie: TestAerie, email: string, displayName?: string): Promise<string> {
  const res = await register(aerie, email, displayName);
  if (res.status !== 202) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return aerie.code(email);
}

/** A 6-digit code that differs from `code` (for wrong-code attempts). */
export function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

/** How many mails the outbox holds for `email`. */
export function mailCount(aerie: TestAerie, email: string): number {
  return mailsTo(aerie.dataDir, email).length;
}

/** Email-code rows of `email`, oldest first (raw snake_case columns). */
export function codeRows(aerie: TestAerie, email: string): Promise<Array<Record<string, unknown>>> {
  return aerie.sql('select * from accounts.email_codes where email = ? order by created_at, id', [email]);
}

/** The one live (unconsumed) email-code row of `email`. @throws Error unless exactly one is live. */
export async function liveCodeRow(aerie: TestAerie, email: string): Promise<Record<string, unknown>> {
  const rows = await aerie.sql('select * from accounts.email_codes where email = ? and consumed_at is null', [email]);
  if (rows.length !== 1) throw new Error(`${rows.length} live codes for ${email}`);
  return rows[0];
}

/** Session rows of the account with `email`, oldest first. */
export function sessionRows(aerie: TestAerie, email: string): Promise<Array<Record<string, unknown>>> {
  return aerie.sql(
    'select s.* from accounts.sessions s join accounts.accounts a on a.id = s.account_id where a.email = ? order by s.created_at, s.id',
    [email],
  );
}

/** ISO string of a timestamp column value (Date from pg/PGlite). */
export function iso(value: unknown): string {
  return new Date(value as string | Date).toISOString();
}

export const DAY = 86_400;

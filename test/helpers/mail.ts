import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The `.eml` files in `<dataDir>/outbox` addressed to `to`, oldest first (raw RFC 5322 text). */
export function mailsTo(dataDir: string, to: string): string[] {
  const dir = join(dataDir, 'outbox');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .filter((text) => new RegExp(`^To: .*${to.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'mi').test(text));
}

/** The 6-digit code of the newest sign-in mail to `to`. @throws Error when there is none. */
export function latestCode(dataDir: string, to: string): string {
  const mails = mailsTo(dataDir, to);
  const match = /^Subject: Your Aerie code: (\d{6})$/m.exec(mails.at(-1) ?? '');
  if (!match) throw new Error(`no code mailed to ${to}`);
  return match[1];
}

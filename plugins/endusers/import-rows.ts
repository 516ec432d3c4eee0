import { isDisplayName } from '../../core/index.ts';
import { isEndUserEmail, normalizeEmail } from './email.ts';
import type { ImportRowResult, ImportUser } from './service-interfaces.ts';

/** Longest display name accepted. */
export const MAX_DISPLAY_NAME_LENGTH = 200;

/** A row that passed the checks, with its normalized email. */
export interface AcceptedRow {
  index: number;
  email: string;
  emailNormalized: string;
  displayName: string | null;
  passwordHash: string | null;
  passwordHashAlgorithm: string | null;
}

/**
 * Checks each row on its own: the email (sane, at most 254 characters), the display name (1–200
 * characters, not blank, a display name), a password hash only with its algorithm, and the
 * normalized email not already seen earlier in the request.
 * @returns the rows to write, and the answers of the others (by index).
 */
export function screenRows(users: readonly ImportUser[]): { accepted: AcceptedRow[]; refused: ImportRowResult[] } {
  const accepted: AcceptedRow[] = [];
  const refused: ImportRowResult[] = [];
  const seen = new Set<string>();
  users.forEach((user, index) => {
    const refuse = (result: 'duplicate' | 'invalid', reason: ImportRowResult['reason']) => refused.push({ index, email: user.email, result, reason });
    if (!isEndUserEmail(user.email)) return refuse('invalid', 'email_invalid');
    const name = user.displayName;
    if (name !== undefined && (name.length > MAX_DISPLAY_NAME_LENGTH || !/\S/.test(name) || !isDisplayName(name))) return refuse('invalid', 'display_name_invalid');
    if ((user.passwordHash === undefined) !== (user.passwordHashAlgorithm === undefined)) return refuse('invalid', 'password_hash_incomplete');
    const emailNormalized = normalizeEmail(user.email);
    if (seen.has(emailNormalized)) return refuse('duplicate', 'duplicate_in_request');
    seen.add(emailNormalized);
    accepted.push({
      index, email: user.email, emailNormalized, displayName: name ?? null,
      passwordHash: user.passwordHash ?? null, passwordHashAlgorithm: user.passwordHashAlgorithm ?? null,
    });
  });
  return { accepted, refused };
}

/**
 * End-user email addresses: stored as given, matched by their normalized form (Unicode NFC, then
 * lowercase), so `É` composed and decomposed, and any letter case, are one address.
 * @see docs/api/endusers.md "Email addresses"
 */

/** Longest address accepted (RFC 5321 path limit). */
export const MAX_EMAIL_LENGTH = 254;

// local@domain: no whitespace or control characters anywhere, one `@`, a local part of at most 64
// characters, a domain of dot-separated labels (letters of any script, digits, `-`) with a final
// label of at least two characters. Non-ASCII addresses (RFC 6531) are accepted.
const EMAIL = /^[^\s@\p{Cc}\p{Cf}]{1,64}@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+[\p{L}\p{N}-]{2,63}$/u;

/** Whether `value` is an address Aerie accepts for an end user. */
export function isEndUserEmail(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && EMAIL.test(value);
}

/** The form addresses are matched by: NFC, lowercase. */
export function normalizeEmail(value: string): string {
  return value.normalize('NFC').toLowerCase();
}


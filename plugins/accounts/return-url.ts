/** Where the dashboard door sends a person when `returnUrl` is absent or refused. */
export const DEFAULT_RETURN_URL = '/account/security';

/**
 * `returnUrl` of the dashboard door, when it is a same-origin relative path: starts with one `/`
 * (not `//` or `/\`, which browsers read as another host), no scheme, no control characters or
 * backslashes, at most 2,000 characters. Anything else is ignored (the default is used).
 * @see docs/api/accounts.md "The dashboard door"
 */
export function safeReturnUrl(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return DEFAULT_RETURN_URL;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return DEFAULT_RETURN_URL;
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return DEFAULT_RETURN_URL;
  // Resolved against a placeholder origin, the path must stay on it.
  const resolved = new URL(value, 'https://origin.invalid');
  return resolved.origin === 'https://origin.invalid' ? `${resolved.pathname}${resolved.search}${resolved.hash}` : DEFAULT_RETURN_URL;
}

/** `prompt` of the dashboard door: `select_account`, or the default (`login`) for anything else. */
export function doorPrompt(value: unknown): 'login' | 'select_account' {
  return value === 'select_account' ? 'select_account' : 'login';
}

/** Where the dashboard door sends a person when `returnUrl` is absent or refused. */
export const DEFAULT_RETURN_URL = '/account/security';

const PLACEHOLDER = 'https://origin.invalid';

/** Whether `path` is a same-origin path as a browser reads it: one leading `/`, then not `/` or `\`. */
function samePath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}

/**
 * `returnUrl` of the dashboard door, when it is a same-origin relative path: starts with one `/`
 * (not `//` or `/\`, which browsers read as another host), no scheme, no control characters or
 * backslashes, at most 2,000 characters — and still so **after normalisation**: the answer is the
 * normalised path (dot segments resolved, `%2e` read as `.`), which is what the page navigates to,
 * so `/.//evil.example` (normalised `//evil.example`) is refused, not passed on. Anything else is
 * ignored (the default is used).
 * @see docs/api/accounts.md "The dashboard door"
 */
export function safeReturnUrl(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return DEFAULT_RETURN_URL;
  if (!samePath(value)) return DEFAULT_RETURN_URL;
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return DEFAULT_RETURN_URL;
  // Resolved against a placeholder origin, the path must stay on it, and so must what it normalises to.
  const resolved = new URL(value, PLACEHOLDER);
  if (resolved.origin !== PLACEHOLDER) return DEFAULT_RETURN_URL;
  const path = `${resolved.pathname}${resolved.search}${resolved.hash}`;
  if (!samePath(path) || new URL(path, PLACEHOLDER).origin !== PLACEHOLDER) return DEFAULT_RETURN_URL;
  return path;
}

/** `prompt` of the dashboard door: `select_account`, or the default (`login`) for anything else. */
export function doorPrompt(value: unknown): 'login' | 'select_account' {
  return value === 'select_account' ? 'select_account' : 'login';
}

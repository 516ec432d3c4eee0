import type { KoaContextWithOIDC } from 'oidc-provider';

/** The provider's own pages run no script and load nothing; forms post to the provider only. */
export const PROVIDER_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML-escapes text for the provider's pages. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function page(ctx: KoaContextWithOIDC, title: string, body: string): void {
  ctx.set('content-security-policy', PROVIDER_PAGE_CSP);
  ctx.set('x-frame-options', 'DENY');
  ctx.set('referrer-policy', 'no-referrer');
  ctx.type = 'html';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>`
    + '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}button{font:inherit;padding:.5rem 1rem;margin-right:.5rem}</style>'
    + `</head><body><main>${body}</main></body></html>`;
}

/**
 * The sign-out confirmation of RP-initiated logout. `form` is the provider's own form (its CSRF
 * token included); the buttons submit it.
 */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  page(ctx, 'Sign out', `<h1>Sign out?</h1><p>Do you want to sign out of ${escapeHtml(ctx.oidc.client?.clientName ?? 'this application')}?</p>${form}`
    + '<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>'
    + '<button type="submit" form="op.logoutForm">No, stay signed in</button>');
}

/** Shown after a sign-out that had no (registered) place to go back to. */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  page(ctx, 'Signed out', '<h1>Signed out</h1><p>You are signed out. You can close this window.</p>');
}

/** Errors the provider answers in a browser (bad client, redirect URI not registered, …): escaped, never redirected. */
export async function renderError(ctx: KoaContextWithOIDC, out: object): Promise<void> {
  const rows = Object.entries(out).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd id="${escapeHtml(k)}">${escapeHtml(v)}</dd>`).join('');
  page(ctx, 'Sign-in error', `<h1>This sign-in request cannot continue</h1><dl>${rows}</dl>`);
}

/**
 * The headers of Aerie's own server-rendered pages (invitation, end-user invite, dashboard door,
 * hosted login): script, style, images and requests from the same origin only, no inline script,
 * no forms posting anywhere (the pages post with `fetch`), no framing, no referrer (links carry
 * tokens), no MIME sniffing. A page that needs more states its own.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGE_HEADERS, reply, route, type RouteDef } from '../../../core/index.ts';
import { webauthnBundlePath } from '../relying-party.ts';

const PAGE_DIR = fileURLToPath(new URL('../page', import.meta.url));


/** Aerie's page headers, except that this page's forms post to its own origin and it keeps a same-origin referrer. */
const SECURITY_PAGE_HEADERS = {
  ...PAGE_HEADERS,
  'content-security-policy': PAGE_HEADERS['content-security-policy'].replace("form-action 'none'", "form-action 'self'"),
  'referrer-policy': 'same-origin',
};

/**
 * The built-in account security page: `GET /account/security` (plain HTML) and its assets under
 * `/account/assets/` (`security.js`, `security.css`, `webauthn.js` = @simplewebauthn/browser).
 * The page signs in by email code or passkey into a cookie session and uses the JSON API with
 * `X-CSRF-Token`. Files are read once at boot.
 * @see docs/api/accounts.md (cookie session), docs/api/passkeys.md
 */
export function securityPageRoutes(): RouteDef[] {
  const asset = (path: string, file: string, type: string, cache: string): RouteDef => {
    const body = readFileSync(file);
    return route({
      method: 'GET', path, auth: 'public', tags: ['pages'], summary: `Asset of /account/security (${type.split(';')[0]})`,
      response: { contentType: type.split(';')[0], description: 'The file' },
      handler: () => reply(200, body, { ...SECURITY_PAGE_HEADERS, 'content-type': type, 'cache-control': cache }),
    });
  };
  return [
    asset('/account/security', join(PAGE_DIR, 'security.html'), 'text/html; charset=utf-8', 'no-store'),
    asset('/account/assets/security.js', join(PAGE_DIR, 'security.js'), 'text/javascript; charset=utf-8', 'no-cache'),
    asset('/account/assets/security.css', join(PAGE_DIR, 'security.css'), 'text/css; charset=utf-8', 'no-cache'),
    asset('/account/assets/webauthn.js', webauthnBundlePath(), 'text/javascript; charset=utf-8', 'public, max-age=3600'),
  ];
}

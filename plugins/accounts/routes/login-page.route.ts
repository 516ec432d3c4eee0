import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { PAGE_HEADERS, reply, route, type RouteDef, type RouteSchema } from '../../../core/index.ts';
import { doorPrompt, safeReturnUrl } from '../return-url.ts';

const PAGE_DIR = fileURLToPath(new URL('../page/', import.meta.url));


/** JSON Schema `accounts/door.query`: the dashboard door's parameters (anything else is ignored). */
const doorQuery = {
  $id: 'accounts/door.query',
  type: 'object',
  properties: {
    returnUrl: { type: 'string', maxLength: 4000 },
    login_hint: { type: 'string', maxLength: 320 },
    prompt: { type: 'string', maxLength: 100 },
  },
} as const satisfies RouteSchema;

/**
 * `GET {dashboard_url}/login` — the account-owner door: sign in to an Aerie account (emailed code,
 * or a passkey when no address is hinted), then go on to `returnUrl` — a same-origin relative path,
 * anything else ignored (the server reduces it before the page sees it). `login_hint` and `prompt`
 * as docs/api/accounts.md "The dashboard door" says. Script `/account/assets/login.js`.
 * @see docs/api/accounts.md "The dashboard door"
 */
export function loginPageRoutes(): RouteDef[] {
  const eta = new Eta({ autoEscape: true, autoTrim: false });
  const template = readFileSync(`${PAGE_DIR}login.eta`, 'utf8');
  const script = readFileSync(`${PAGE_DIR}login.js`);
  return [
    route({
      method: 'GET', path: '/login', auth: 'public', query: doorQuery, tags: ['pages'],
      response: { contentType: 'text/html', description: 'The sign-in page' }, summary: 'The dashboard door: sign in to an Aerie account, then go on to returnUrl',
      handler: ({ query }) => {
        const hint = typeof query.login_hint === 'string' && /^[^\s<>"']{3,320}$/.test(query.login_hint) ? query.login_hint : '';
        const html = eta.renderString(template, { returnUrl: safeReturnUrl(query.returnUrl), hint, prompt: doorPrompt(query.prompt) });
        return reply(200, html, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' });
      },
    }),
    route({
      method: 'GET', path: '/account/assets/login.js', auth: 'public', tags: ['pages'], summary: 'Script of the dashboard door',
      response: { contentType: 'text/javascript', description: 'The file' },
      handler: () => reply(200, script, { ...PAGE_HEADERS, 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }),
    }),
  ];
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PAGE_HEADERS, reply, route, type RouteDef } from '../../../core/index.ts';

const PAGE_DIR = fileURLToPath(new URL('../page/', import.meta.url));


/**
 * `GET /enduser/invite?token=…` — the page the invite mail links to (`{login_url}/enduser/invite`):
 * static, its script posts the token to `POST /api/enduser/verify-invite` when the person confirms.
 * @see docs/api/endusers.md "Invitations"
 */
export function invitePageRoutes(): RouteDef[] {
  const file = (path: string, name: string, type: string, summary: string): RouteDef => {
    const body = readFileSync(`${PAGE_DIR}${name}`);
    return route({
      method: 'GET', path, auth: 'public', tags: ['pages'], summary,
      response: { contentType: type.split(';')[0], description: 'The file' },
      handler: () => reply(200, body, { ...PAGE_HEADERS, 'content-type': type, 'cache-control': 'no-cache' }),
    });
  };
  return [
    file('/enduser/invite', 'invite.html', 'text/html; charset=utf-8', "The page an end user's invite mail links to: confirm the email address"),
    file('/enduser/invite/assets/invite.js', 'invite.js', 'text/javascript; charset=utf-8', 'Script of the end-user invite page'),
  ];
}

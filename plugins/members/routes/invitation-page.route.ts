import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { PAGE_HEADERS, reply, route, type RouteDef } from '../../../core/index.ts';
import type { InvitationPreviewService } from '../invitation-preview.service.ts';
import { invitationPageQuery } from '../schemas/invitation-page.query.ts';

const PAGE_DIR = fileURLToPath(new URL('../page/', import.meta.url));


const EXPIRY_FORMAT = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' });

const CLOSED: Record<string, string> = {
  accepted: 'This invitation has already been accepted.',
  declined: 'This invitation was declined.',
  cancelled: 'This invitation was cancelled by the organization.',
  expired: 'This invitation has expired. Ask the person who invited you to send it again.',
};

/**
 * `GET /invitation?token=…` — the page the invitation mail links to (`{dashboard_url}/invitation`):
 * server-rendered (eta, every value HTML-escaped) with the organization, role, address and expiry,
 * and buttons that create the account and accept, sign in by email code and accept, or decline —
 * through the JSON routes of docs/api/members.md. 404 for an unknown token, 200 with the state for a
 * closed one. Assets under `/invitation/assets/`.
 * @see docs/api/members.md "The invitation page"
 */
export function invitationPageRoutes(previews: InvitationPreviewService): RouteDef[] {
  const eta = new Eta({ autoEscape: true, autoTrim: false });
  const template = readFileSync(`${PAGE_DIR}invitation.eta`, 'utf8');
  const asset = (path: string, file: string, type: string): RouteDef => {
    const body = readFileSync(`${PAGE_DIR}${file}`);
    return route({
      method: 'GET', path, auth: 'public', tags: ['pages'], summary: `Asset of the invitation page (${type.split(';')[0]})`,
      response: { contentType: type.split(';')[0], description: 'The file' },
      handler: () => reply(200, body, { ...PAGE_HEADERS, 'content-type': type, 'cache-control': 'no-cache' }),
    });
  };
  return [
    route({
      method: 'GET', path: '/invitation', auth: 'public', query: invitationPageQuery, tags: ['pages'],
      response: { 200: { contentType: 'text/html', description: 'The invitation page (also for a closed invitation, which it says)' }, 404: { contentType: 'text/html', description: 'The page saying the invitation is unknown' } },
      summary: 'The page an invitation mail links to: accept (creating the account or signing in) or decline',
      handler: async ({ query }) => {
        const invitation = query.token ? await previews.preview(query.token) : undefined;
        const expiresText = invitation ? EXPIRY_FORMAT.format(new Date(invitation.expiresAt)) : '';
        const html = eta.renderString(template, { invitation, expiresText, token: query.token ?? '', closedText: invitation ? CLOSED[invitation.status] ?? '' : '' });
        return reply(invitation ? 200 : 404, html, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      },
    }),
    asset('/invitation/assets/invitation.js', 'invitation.js', 'text/javascript; charset=utf-8'),
    asset('/invitation/assets/invitation.css', 'invitation.css', 'text/css; charset=utf-8'),
  ];
}

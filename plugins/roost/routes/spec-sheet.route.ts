import { reply, route, type Clock, type RouteDef } from '../../../core/index.ts';
import type { RearmKey } from '../rearm-key.ts';
import { renderSpecSheet } from '../spec-sheet.pdf.ts';

/**
 * `GET /api/roost/spec-sheet`: the box spec sheet as a PDF attachment, for any signed-in account
 * (401 otherwise). @see docs/api/roost.md
 */
export function specSheetRoute(key: RearmKey | null, baseUrl: string, clock: Clock): RouteDef {
  return route({
    method: 'GET', path: '/api/roost/spec-sheet', auth: 'session', summary: 'Signing box spec sheet (PDF)', tags: ['roost'],
    response: { contentType: 'application/pdf', description: 'The spec sheet (attachment)' },
    handler: async () =>
      reply(200, await renderSpecSheet(key?.publicDocument ?? null, baseUrl, clock.now()), {
        'content-type': 'application/pdf',
        'content-disposition': 'attachment; filename="aerie-roost-spec-sheet.pdf"',
      }),
  });
}

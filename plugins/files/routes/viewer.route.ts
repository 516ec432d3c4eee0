import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { AerieError, reply, route, type RateLimiter, type RouteDef } from '../../../core/index.ts';
import type { SharedFileDto, SharesService } from '../shares.service.ts';
import { shareTokenParams } from '../schemas/requests.ts';

const PAGE_DIR = fileURLToPath(new URL('../page/', import.meta.url));

type Kind = 'image' | 'pdf' | 'audio' | 'video' | 'download';

/** What the page shows in place: only the inline allow-list (the content URL is `inline` for exactly those). */
function kindOf(file: SharedFileDto): Kind {
  if (file.disposition !== 'inline') return 'download';
  if (file.contentType === 'application/pdf') return 'pdf';
  const top = file.contentType.split('/')[0];
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'download';
}

/**
 * The page's Content-Security-Policy: no script at all, no styles, nothing but the file's own
 * content URL (its origin, for the one element that shows it), no framing, no forms, no referrer.
 */
function policy(kind: Kind, contentUrl?: string): string {
  const origin = contentUrl ? new URL(contentUrl).origin : undefined;
  const source = origin && { image: 'img-src', pdf: 'frame-src', audio: 'media-src', video: 'media-src', download: undefined }[kind];
  return ["default-src 'none'", ...(source ? [`${source} ${origin}`] : []), "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');
}

const size = (bytes: number) => (bytes < 1024 ? `${bytes} bytes` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`);

const REFUSED: Record<number, [string, string]> = {
  403: ['This file is not shared', 'The owner has stopped sharing this file. Ask them for access.'],
  404: ['This link does not exist', 'The link is wrong, was replaced by a new one, or the file was removed.'],
  429: ['Too many opens', 'This address opened too many share links in a minute. Try again shortly.'],
};

/**
 * `GET /f/{shareToken}` — the share link's viewer page (`{share_url}/f/{shareToken}`), rendered on
 * the server (eta, every value escaped) from what `GET /api/public/share/{shareToken}` answers:
 * images, PDF, audio and video recognised from their bytes shown in place through the 10-minute
 * content URL, anything else (HTML and SVG always) offered as a download. The page runs no script;
 * its CSP admits only the content URL's origin. Each open is audited (`org.file.share_viewed`,
 * hashed address and agent) and counted against the same 60-a-minute limit. 404 / 403 / 429 pages
 * answer an unknown or rotated link, a file not shared, and too many opens.
 * @see docs/api/files.md "The viewer page"
 */
export function viewerRoutes(shares: SharesService, opensPerIp: RateLimiter): RouteDef[] {
  const eta = new Eta({ autoEscape: true, autoTrim: false });
  const template = readFileSync(`${PAGE_DIR}viewer.eta`, 'utf8');
  const page = (status: number, html: string, csp: string) => reply(status, html, {
    'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp, 'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY', 'cache-control': 'no-store',
  });
  return [
    route({
      method: 'GET', path: '/f/{shareToken}', auth: 'public', params: shareTokenParams, tags: ['pages'],
      response: {
        200: { contentType: 'text/html', description: 'The viewer: the file in place (images, PDF, audio, video) or a download link' },
        403: { contentType: 'text/html', description: 'The file is not shared now' },
        404: { contentType: 'text/html', description: 'No file has this link' },
        429: { contentType: 'text/html', description: 'Too many opens from this address' },
      },
      summary: 'The share link viewer page',
      handler: async ({ params, request }) => {
        let file: SharedFileDto;
        try {
          await opensPerIp.consume(request.ip);
          file = await shares.open(params.shareToken, request);
        } catch (err) {
          const status = err instanceof AerieError ? err.status : 500;
          const refused = REFUSED[status];
          if (!refused) throw err;
          return page(status, eta.renderString(template, { title: refused[0], message: refused[1] }), policy('download'));
        }
        const kind = kindOf(file);
        return page(200, eta.renderString(template, { file, kind, title: file.fileName, sizeText: size(file.sizeBytes) }), policy(kind, file.contentUrl));
      },
    }),
  ];
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import type { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { call, keyedOrg, startWithOrg, uploaded, type KeyedOrg } from './helpers.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
const CHROMIUM = '/usr/bin/chromium';

/** The share link's viewer page `{share_url}/f/{shareToken}`. */
describe('files: the share viewer page', () => {
  let aerie: TestAerie;
  let acme: KeyedOrg;
  const shared = async (bytes: Buffer | string, name: string, type?: string) => {
    const file = await uploaded(aerie, acme.key, bytes, name, type);
    await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, { mode: 'link_anyone' });
    return file;
  };
  const view = async (token: string) => {
    const res = await fetch(`${aerie.url}/f/${token}`, { headers: { 'user-agent': 'viewer-agent/1' } });
    return { status: res.status, csp: res.headers.get('content-security-policy') ?? '', type: res.headers.get('content-type'), html: await res.text() };
  };

  beforeAll(async () => {
    ({ aerie, org: acme } = await startWithOrg({}));
  });
  afterAll(() => aerie?.close());

  it('shows an image in place under a CSP that runs no script and admits only the content URL, and audits the view with hashes only', async () => {
    const file = await shared(PNG, 'pixel.png');
    const page = await view(file.shareToken);
    expect([page.status, page.type]).toEqual([200, 'text/html; charset=utf-8']);
    const src = /<img src="([^"]+)"/.exec(page.html)![1].replace(/&amp;/g, '&');
    expect(src.startsWith(`${aerie.kernel.config.baseUrl}/api/blobs/`)).toBe(true);
    expect(page.csp).toBe(`default-src 'none'; img-src ${new URL(aerie.kernel.config.baseUrl).origin}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
    expect(page.html).not.toContain('<script');
    const views = (await auditEvents(aerie, acme, 'org.file.share_viewed')).filter((e) => e.businessData.fileId === file.id);
    expect(views).toHaveLength(1);
    expect(JSON.stringify(views[0].businessData)).not.toMatch(/viewer-agent|127\.0\.0\.1/);
  });

  it('never shows HTML or SVG in place: a download link, the names escaped', async () => {
    for (const [bytes, name, type] of [['<html><script>alert(1)</script></html>', '<b>x</b>.png', 'image/png'], [SVG, 'logo.svg', 'image/svg+xml']] as const) {
      const file = await shared(bytes, name, type);
      const page = await view(file.shareToken);
      expect(page.status).toBe(200);
      expect(page.html).not.toMatch(/<img|<iframe|<audio|<video|<script/);
      expect(page.html).toMatch(/<a href="[^"]+" rel="noreferrer" download>Download /);
      expect(page.csp).toBe("default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    }
    expect((await view((await shared('x', 'a<i>b.txt')).shareToken)).html).toContain('<h1>a&lt;i&gt;b.txt</h1>');
  });

  it('answers 404 for an unknown or rotated link and 403 for a file not shared, as pages', async () => {
    const file = await shared('x', 'x.txt');
    await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, { mode: 'restricted' });
    expect((await view(file.shareToken)).status).toBe(403);
    await call(aerie, acme.key, 'POST', `/files/${file.id}/share/rotate`);
    const gone = await view(file.shareToken);
    expect([gone.status, gone.type]).toEqual([404, 'text/html; charset=utf-8']);
    expect(gone.html).toContain('This link does not exist');
    expect((await view('not-a-token')).status).toBe(404);
  });

  describe.skipIf(!existsSync(CHROMIUM))(`in a real browser (${CHROMIUM})`, () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
    });
    afterAll(() => browser?.close());

    it('renders the image, runs no script from an HTML or SVG file, and reports no CSP violation', async () => {
      const violations: string[] = [];
      const page = await browser.newPage();
      page.on('console', (msg) => {
        if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
      });
      let dialogs = 0;
      page.on('dialog', (d) => {
        dialogs += 1;
        void d.dismiss();
      });
      // The content URLs point at the configured base URL; the browser fetches them from this test server.
      const base = aerie.kernel.config.baseUrl;
      await page.route(`${base}/**`, (r) => r.continue({ url: aerie.url + r.request().url().slice(base.length) }));
      const image = await shared(PNG, 'dot.png');
      await page.goto(`${aerie.url}/f/${image.shareToken}`);
      await expect.poll(() => page.evaluate(() => (document.querySelector('img') as HTMLImageElement | null)?.naturalWidth ?? 0)).toBe(1);
      for (const [bytes, name, type] of [['<html><script>alert(1)</script></html>', 'page.html', 'text/html'], [SVG, 'logo.svg', 'image/svg+xml']] as const) {
        const file = await shared(bytes, name, type);
        await page.goto(`${aerie.url}/f/${file.shareToken}`);
        expect(await page.locator('a[download]').count()).toBe(1);
        expect(await page.title()).toBe(name);
      }
      expect(dialogs).toBe(0);
      expect(violations).toEqual([]);
      await page.close();
    });
  });
});

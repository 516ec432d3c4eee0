/**
 * The dashboard door and sign-in with an Aerie account, in a real browser (Debian's chromium):
 * `{dashboard_url}/login` signs a person in and goes on to `returnUrl` only when it is a same-origin
 * path; a session matching `login_hint` forwards at once; `prompt=select_account` offers the choice.
 * Then an application's hosted login hands over to the Aerie-account page, which sends a signed-out
 * person through the door and back, asks for consent, and returns to the application with a code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TestAerie } from '../helpers/harness.ts';
import { latestCode } from '../helpers/mail.ts';
import { authorizationRequest, relyingParty, signInWorld, type SignInWorld } from '../plugins/oidc/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))(`the dashboard door in a real browser (needs ${CHROMIUM})`, () => {
  let aerie: TestAerie;
  let browser: Browser;
  let base: string;
  let shop: SignInWorld;
  let app: Server;
  let callbackUri: string;
  const arrivals: URL[] = [];
  const violations: string[] = [];

  beforeAll(async () => {
    app = createServer((req, res) => {
      const url = new URL(req.url!, callbackUri);
      if (url.pathname === '/callback') arrivals.push(url);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="app">signed in</p>');
    }).listen(0, '127.0.0.1');
    await new Promise((ok) => app.once('listening', ok));
    callbackUri = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    aerie = await TestAerie.start({ exactBaseUrl: true });
    base = aerie.kernel.config.baseUrl;
    shop = await signInWorld(aerie, 'shop');
    expect((await aerie.request('PUT', `/api/org/shop/applications/${shop.appId}`, { token: shop.org.owner, body: { redirectUris: [callbackUri] } })).status).toBe(200);
    expect((await aerie.request('PUT', `/api/org/shop/app-groups/${shop.groupId}`, { token: shop.org.owner, body: { branding: { aerieAccountEnabled: true } } })).status).toBe(200);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
  });
  afterAll(async () => {
    await browser?.close();
    await aerie?.close();
    await new Promise((done) => app?.close(done));
  });

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    return page;
  }
  async function signInByCode(page: Page, email: string): Promise<void> {
    await page.waitForSelector('#sign-in:not([hidden])');
    await page.fill('#email', email);
    await page.click('#send-code');
    await page.waitForSelector('#code-form:not([hidden])');
    await page.fill('#code', latestCode(aerie.dataDir, email));
    await page.click('#verify-code');
  }

  it('signs in and goes on to a same-origin returnUrl only; a matching session forwards at once; select_account offers the choice', async () => {
    const page = await newPage();
    await page.goto(`${base}/login?returnUrl=${encodeURIComponent('https://evil.example/steal')}`);
    await signInByCode(page, 'ann@example.com');
    await page.waitForURL(`${base}/account/security`);

    await page.goto(`${base}/login?returnUrl=%2Flogin%2Fsomewhere&login_hint=ann%40example.com`);
    await page.waitForURL(`${base}/login/somewhere`);

    await page.goto(`${base}/login?login_hint=bo%40example.com&prompt=select_account&returnUrl=%2Faccount%2Fsecurity`);
    await page.waitForSelector('#choose:not([hidden])');
    expect(await page.textContent('#held')).toBe('ann@example.com');
    expect(await page.isVisible('#passkey-sign-in')).toBe(false);
    await page.click('#use-hint');
    expect(await page.inputValue('#email')).toBe('bo@example.com');
    await signInByCode(page, 'bo@example.com');
    await page.waitForURL(`${base}/account/security`);
    const me = await page.evaluate(async () => (await (await fetch('/api/v1/users/me')).json()).account.email);
    expect(me).toBe('bo@example.com');
    expect(violations).toEqual([]);
  });

  it('signs in to an application with an Aerie account through the hosted login, the door and consent', async () => {
    const page = await newPage();
    const rp = await relyingParty(shop);
    const request = await authorizationRequest(rp, { redirect_uri: callbackUri });
    await page.goto(request.url);
    await page.click('#aerie-account');
    await page.waitForSelector('#signed-out:not([hidden])');
    await page.click('#signed-out a');
    await signInByCode(page, 'cy@example.com');
    await page.waitForURL(`${base}/login/${shop.clientId}/aerie`);
    await page.waitForSelector('#consent-text:not([hidden])');
    await page.click('#continue');
    await page.waitForSelector('#app');
    const tokens = await oidc.authorizationCodeGrant(rp, arrivals.at(-1)!, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens.claims()).toMatchObject({ email: 'cy@example.com', amr: ['aerie'] });
    expect(violations).toEqual([]);
  });
});

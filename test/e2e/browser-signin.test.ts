/**
 * An end user signs in to an organization's application in a real browser (Debian's chromium
 * through playwright-core): the relying party (openid-client) starts an authorization code + PKCE
 * request, the browser lands on the hosted login, asks for a code, types the mailed code, and is sent
 * back to the application's redirect URI; the relying party exchanges the code and verifies the ID
 * token and the access token through discovery and the JWKS. The page runs under its strict
 * Content-Security-Policy (a violation would stop its script and fail the flow).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { chromium, type Browser } from 'playwright-core';
import { TestAerie } from '../helpers/harness.ts';
import { auditEvents } from '../helpers/audit-events.ts';
import { authorizationRequest, loginCode, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld } from '../plugins/oidc/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))(`the hosted login in a real browser (needs ${CHROMIUM}: apt-get install chromium)`, () => {
  let aerie: TestAerie;
  let browser: Browser;
  let world: SignInWorld;
  let rp: oidc.Configuration;
  /** The application's own callback, a real server: it records where the browser arrived. */
  let app: Server;
  let callbackUri: string;
  const arrivals: URL[] = [];

  beforeAll(async () => {
    app = createServer((req, res) => {
      const url = new URL(req.url!, callbackUri);
      if (url.pathname === '/callback') arrivals.push(url); // not the browser's /favicon.ico
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="app">signed in</p>');
    }).listen(0, '127.0.0.1');
    await new Promise((ok) => app.once('listening', ok));
    callbackUri = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    aerie = await TestAerie.start({ exactBaseUrl: true });
    world = await signInWorld(aerie, 'acme');
    const uris = await aerie.request('PUT', `/api/org/acme/applications/${world.appId}`, { token: world.org.owner, body: { redirectUris: [REDIRECT_URI, callbackUri] } });
    expect(uris.status).toBe(200);
    const branded = await aerie.request('PUT', `/api/org/acme/app-groups/${world.groupId}`, {
      token: world.org.owner, body: { branding: { heroTitle: 'Welcome to Acme Shop', primaryColor: '#AA3300' } },
    });
    expect(branded.status, JSON.stringify(branded.body)).toBe(200);
    rp = await relyingParty(world);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
  });
  afterAll(async () => {
    await browser?.close();
    await aerie?.close();
    await new Promise((done) => app?.close(done));
  });

  it('signs in with an emailed code and returns to the application with a code that exchanges for verified tokens', async () => {
    const violations: string[] = [];
    const page = await browser.newPage();
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    const request = await authorizationRequest(rp, { login_hint: world.email, redirect_uri: callbackUri });
    const landing = await page.goto(request.url);
    expect(landing!.status()).toBe(200);
    expect(page.url()).toBe(`${aerie.url}/login/${world.clientId}`);
    expect(landing!.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(await page.textContent('#title')).toBe('Welcome to Acme Shop');
    expect(await page.inputValue('#email')).toBe(world.email);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('#send-code')!).backgroundColor)).toBe('rgb(170, 51, 0)');

    await page.click('#send-code');
    await page.waitForSelector('#code-form:not([hidden])');
    await page.fill('#code', loginCode(aerie, world.email));
    await page.click('#verify-code');
    await page.waitForSelector('#app');
    const callback = arrivals.at(-1)!;
    expect(callback.searchParams.get('state')).toBe(request.state);

    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const jwks = createRemoteJWKSet(new URL(rp.serverMetadata().jwks_uri!));
    const id = await jwtVerify(tokens.id_token!, jwks, { issuer: world.issuer, audience: world.clientId, algorithms: ['RS256'] });
    expect(id.payload.sub).toBe(world.endUserId);
    const access = await jwtVerify(tokens.access_token, jwks, { issuer: world.issuer, audience: `urn:aerie:app-group:${world.groupId}`, algorithms: ['RS256'], typ: 'at+jwt' });
    expect(access.payload).toMatchObject({ sub: world.endUserId, permissions: '[]' });
    expect(violations).toEqual([]);

    // A second authorization in the same browser: the provider session signs the end user in without the page.
    const again = await authorizationRequest(rp, { redirect_uri: callbackUri });
    const before = arrivals.length;
    await page.goto(again.url);
    await page.waitForSelector('#app');
    expect(arrivals.length).toBe(before + 1);
    expect(arrivals.at(-1)!.searchParams.get('code')).toBeTruthy();
    await page.close();

    await aerie.kernel.auditSealer.drain();
    const signIns = await auditEvents(aerie, world.org, 'org.end_user.signed_in');
    expect(signIns).toHaveLength(1);
  });

  it('shows a wrong code as an error on the page and lets the end user try again', async () => {
    const page = await browser.newPage();
    await page.goto((await authorizationRequest(rp, { redirect_uri: callbackUri })).url);
    await page.fill('#email', world.email);
    await page.click('#send-code');
    await page.waitForSelector('#code-form:not([hidden])');
    const code = loginCode(aerie, world.email);
    await page.fill('#code', code === '123456' ? '654321' : '123456');
    await page.click('#verify-code');
    await page.waitForSelector('#result[data-state=error]');
    expect(await page.textContent('#result')).toBe('That code is not right.');
    await page.fill('#code', code);
    await page.click('#verify-code');
    await page.waitForSelector('#app');
    await page.close();
  });
});

/**
 * An end user signs in to an organization's application in a real browser (Debian's chromium
 * through playwright-core, a CDP virtual authenticator for passkeys): the relying party
 * (openid-client) starts an authorization code + PKCE request, the browser lands on the hosted login,
 * signs in with a mailed code and adds a passkey, comes back to the application, and later signs in
 * with the passkey alone; the relying party exchanges each code and verifies the ID token and the
 * access token through discovery and the JWKS. The page runs under its strict Content-Security-Policy
 * (a violation would stop its script and fail the flow). On `http://localhost` (a WebAuthn RP ID
 * must be a host name; localhost is a secure context).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { TestAerie } from '../helpers/harness.ts';
import { auditEvents } from '../helpers/audit-events.ts';
import { authorizationRequest, awaitLoginCode, loginCode, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld } from '../plugins/oidc/helpers.ts';

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
  const violations: string[] = [];

  beforeAll(async () => {
    app = createServer((req, res) => {
      const url = new URL(req.url!, callbackUri);
      if (url.pathname === '/callback') arrivals.push(url); // not the browser's /favicon.ico
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="app">signed in</p>');
    }).listen(0, '127.0.0.1');
    await new Promise((ok) => app.once('listening', ok));
    callbackUri = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    aerie = await TestAerie.start({ exactBaseUrl: 'localhost' });
    world = await signInWorld(aerie, 'acme');
    const uris = await aerie.request('PUT', `/api/org/acme/applications/${world.appId}`, { token: world.org.owner, body: { redirectUris: [REDIRECT_URI, callbackUri] } });
    expect(uris.status).toBe(200);
    const branded = await aerie.request('PUT', `/api/org/acme/app-groups/${world.groupId}`, {
      token: world.org.owner, body: { branding: { heroTitle: 'Welcome to Acme Shop', primaryColor: '#AA3300' } },
    });
    expect(branded.status, JSON.stringify(branded.body)).toBe(200);
    rp = await relyingParty(world);
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking', '--host-resolver-rules=MAP localhost 127.0.0.1'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await aerie?.close();
    await new Promise((done) => app?.close(done));
  });

  /** A browser context with a virtual platform authenticator (user verification on). */
  async function withAuthenticator(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    return { context, page };
  }

  /** Exchanges the code of the latest arrival and verifies both tokens; answers the access token's claims. */
  async function tokensOf(request: { verifier: string; state: string }) {
    const callback = arrivals.at(-1)!;
    expect(callback.searchParams.get('state')).toBe(request.state);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const jwks = createRemoteJWKSet(new URL(rp.serverMetadata().jwks_uri!));
    const id = await jwtVerify(tokens.id_token!, jwks, { issuer: world.issuer, audience: world.clientId, algorithms: ['RS256'] });
    expect(id.payload.sub).toBe(world.endUserId);
    const access = await jwtVerify(tokens.access_token, jwks, { issuer: world.issuer, audience: `urn:aerie:app-group:${world.groupId}`, algorithms: ['RS256'], typ: 'at+jwt' });
    return { id: id.payload, access: access.payload };
  }

  it('signs in with an emailed code, adds a passkey, and later signs in with the passkey alone', async () => {
    const { context, page } = await withAuthenticator();
    const request = await authorizationRequest(rp, { login_hint: world.email, redirect_uri: callbackUri });
    const landing = await page.goto(request.url);
    expect(landing!.status()).toBe(200);
    expect(page.url()).toBe(`${world.issuer.replace('/api/public/orgs/acme', '')}/login/${world.clientId}`);
    expect(landing!.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(await page.textContent('#title')).toBe('Welcome to Acme Shop');
    expect(await page.inputValue('#email')).toBe(world.email);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('#send-code')!).backgroundColor)).toBe('rgb(170, 51, 0)');

    await page.click('#send-code');
    await page.waitForSelector('#code-form:not([hidden])');
    await page.fill('#code', await awaitLoginCode(aerie, world.email));
    await page.click('#verify-code');
    await page.waitForSelector('#passkey-offer:not([hidden])');
    await page.click('#add-passkey');
    await page.waitForSelector('#app');
    expect((await tokensOf(request)).access).toMatchObject({ sub: world.endUserId, permissions: '[]' });
    const passkeys = await aerie.sql('select end_user_id, rp_id, org_id from oidc.passkeys');
    expect(passkeys).toEqual([{ end_user_id: world.endUserId, rp_id: 'localhost', org_id: world.org.id }]);

    // Signed out of the provider (cookies gone), the passkey signs in without an address or a code.
    await context.clearCookies();
    const mailsBefore = loginCode(aerie, world.email);
    const again = await authorizationRequest(rp, { redirect_uri: callbackUri });
    await page.goto(again.url);
    await page.click('#passkey-signin');
    await page.waitForSelector('#app');
    const second = await tokensOf(again);
    expect(second.id.amr).toEqual(['hwk']);
    expect(loginCode(aerie, world.email)).toBe(mailsBefore);

    await aerie.kernel.auditSealer.drain();
    const methods = (await auditEvents(aerie, world.org, 'org.end_user.signed_in')).map((e) => e.businessData.method);
    expect(methods).toEqual(['email_code', 'passkey']);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('shows a wrong code as an error on the page and lets the end user try again; "Not now" skips the passkey', async () => {
    const { context, page } = await withAuthenticator();
    await page.goto((await authorizationRequest(rp, { redirect_uri: callbackUri })).url);
    await page.fill('#email', world.email);
    await page.click('#send-code');
    await page.waitForSelector('#code-form:not([hidden])');
    const code = await awaitLoginCode(aerie, world.email);
    await page.fill('#code', code === '123456' ? '654321' : '123456');
    await page.click('#verify-code');
    await page.waitForSelector('#result[data-state=error]');
    expect(await page.textContent('#result')).toBe('That code is not right.');
    await page.fill('#code', code);
    await page.click('#verify-code');
    await page.click('#skip-passkey');
    await page.waitForSelector('#app');
    expect(await aerie.sql('select count(*)::int as n from oidc.passkeys')).toEqual([{ n: 1 }]);
    expect(violations).toEqual([]);
    await context.close();
  });
});

/**
 * The OpenID provider and the hosted login under the attacks a relying party's enemies try:
 * unregistered redirect URIs, PKCE left out or wrong, code replay, one organization's client or
 * token at another's issuer, `alg` confusion, a sign-in finished from another site or browser, and
 * email-code guessing and enumeration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { SignJWT, base64url } from 'jose';
import { TestAerie } from '../../helpers/harness.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { authorizationRequest, browserSignIn, CookieJar, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: attacks on the provider and the hosted login', () => {
  let aerie: TestAerie;
  let acme: SignInWorld;
  let globex: SignInWorld;
  let rp: oidc.Configuration;

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    acme = await signInWorld(aerie, 'acme');
    globex = await signInWorld(aerie, 'globex');
    rp = await relyingParty(acme);
  });
  afterAll(async () => aerie?.close());

  const authorize = (issuer: string, params: Record<string, string>) => new CookieJar().fetch(`${issuer}/oauth/authorize?${new URLSearchParams(params)}`);
  const base = (world: SignInWorld) => ({ client_id: world.clientId, response_type: 'code', scope: 'openid', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', state: 's' });

  it('never redirects to a redirect URI that is not registered exactly', async () => {
    for (const uri of ['http://127.0.0.1:4999/callback/', 'http://127.0.0.1:4999/callbackx', 'https://evil.example/callback', 'http://127.0.0.1:4999/callback?x=1']) {
      const res = await authorize(acme.issuer, { ...base(acme), redirect_uri: uri });
      expect(res.status, uri).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(await res.text()).toContain('redirect_uri did not match any of the client&#39;s registered redirect_uris');
    }
  });

  it('refuses an authorization request without PKCE, and a code exchanged with the wrong verifier or twice', async () => {
    const { code_challenge: _c, code_challenge_method: _m, ...noPkce } = base(acme);
    const res = await authorize(acme.issuer, { ...noPkce, redirect_uri: REDIRECT_URI });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/);

    const request = await authorizationRequest(rp);
    const callback = await browserSignIn(aerie, new CookieJar(), request.url, acme.email);
    const wrong = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: request.state }).then(() => 'granted', (e: { error: string }) => e.error);
    expect(wrong).toBe('invalid_grant');

    const request2 = await authorizationRequest(rp);
    const callback2 = await browserSignIn(aerie, new CookieJar(), request2.url, acme.email);
    const tokens = await oidc.authorizationCodeGrant(rp, callback2, { pkceCodeVerifier: request2.verifier, expectedState: request2.state });
    const replay = await oidc.authorizationCodeGrant(rp, callback2, { pkceCodeVerifier: request2.verifier, expectedState: request2.state }).then(() => 'granted', (e: { error: string }) => e.error);
    expect(replay).toBe('invalid_grant');
    // The replay revoked what the code had issued.
    expect(await oidc.refreshTokenGrant(rp, tokens.refresh_token!).then(() => 'granted', (e: { error: string }) => e.error)).toBe('invalid_grant');
  });

  it("keeps organizations apart: acme's client at globex's issuer, acme's token at globex's endpoints", async () => {
    const res = await authorize(globex.issuer, { ...base(acme), redirect_uri: REDIRECT_URI });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('invalid_client');
    const atGlobex = await relyingParty({ issuer: globex.issuer, clientId: acme.clientId, clientSecret: acme.clientSecret });
    expect(await oidc.clientCredentialsGrant(atGlobex).then(() => 'granted', (e: { error: string }) => e.error)).toBe('invalid_client');

    const request = await authorizationRequest(rp);
    const tokens = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, new CookieJar(), request.url, acme.email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const globexRp = await relyingParty(globex);
    expect(await oidc.tokenIntrospection(globexRp, tokens.access_token)).toEqual({ active: false });
    const info = await fetch(`${globex.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    expect(await oidc.refreshTokenGrant(globexRp, tokens.refresh_token!).then(() => 'granted', (e: { error: string }) => e.error)).toBe('invalid_grant');
  });

  it('accepts RS256 only: an HS256 token keyed with the public key, or alg none, is refused everywhere', async () => {
    const jwks = await (await fetch(`${acme.issuer}/.well-known/jwks.json`)).json();
    const [{ kid, n }] = jwks.keys;
    const claims = { sub: acme.endUserId, client_id: acme.clientId, aud: `urn:aerie:app-group:${acme.groupId}`, scope: 'openid email', permissions: '["admin"]' };
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid }).setIssuer(acme.issuer).setIssuedAt().setExpirationTime('5m')
      .sign(Buffer.from(JSON.stringify(jwks.keys[0])));
    const hsN = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid }).setIssuer(acme.issuer).setIssuedAt().setExpirationTime('5m')
      .sign(base64url.decode(n));
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid }))}.${base64url.encode(JSON.stringify({ ...claims, iss: acme.issuer, exp: Math.floor(Date.now() / 1000) + 300 }))}.`;
    for (const token of [hs, hsN, none]) {
      const info = await fetch(`${acme.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
      expect(info.status).toBe(401);
      expect(await oidc.tokenIntrospection(rp, token)).toEqual({ active: false });
    }
  });

  it('finishes a sign-in only in the browser that started it, and only from the login page itself', async () => {
    const jar = new CookieJar();
    const request = await authorizationRequest(rp);
    const start = await jar.fetch(request.url);
    const login = new URL(start.headers.get('location')!, aerie.url).href;
    const send = (cookie: string, origin?: string) => fetch(`${login}/email-code`, {
      method: 'POST', headers: { 'content-type': 'application/json', cookie, ...(origin ? { origin } : {}) }, body: JSON.stringify({ email: acme.email }),
    });
    expect(await (await send('')).json()).toMatchObject({ error: 'SIGN_IN_NOT_FOUND' });
    expect(await (await send(jar.header(login), 'https://evil.example')).json()).toMatchObject({ error: 'SIGN_IN_NOT_FOUND' });
    // A cookie with a forged signature is no cookie.
    const forged = jar.header(login).replace(/aerie_op_interaction\.sig=[^;]+/, 'aerie_op_interaction.sig=AAAA');
    expect((await send(forged)).status).toBe(404);
    expect((await send(jar.header(login), new URL(aerie.url).origin)).status).toBe(200);
    // Without a sign-in in progress the page says so.
    const page = await fetch(login);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('data-state="none"');
  });

  it('answers the same for an unknown address, mails nothing, and no code ever matches', async () => {
    const jar = new CookieJar();
    const start = await jar.fetch((await authorizationRequest(rp)).url);
    const login = new URL(start.headers.get('location')!, aerie.url).href;
    const post = (path: string, body: unknown) => jar.fetch(`${login}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const known = await post('/email-code', { email: acme.email });
    const unknown = await post('/email-code', { email: 'nobody@acme.test' });
    expect(unknown.status).toBe(known.status);
    expect(await unknown.json()).toEqual({ sent: true, expiresInSeconds: 600 });
    expect(mailsTo(aerie.dataDir, 'nobody@acme.test')).toEqual([]);
    const tries = [];
    for (let i = 0; i < 6; i++) tries.push(await (await post('/email-code/verify', { email: 'nobody@acme.test', code: String(100000 + i) })).json());
    expect(tries.slice(0, 5).map((t) => t.attemptsRemaining)).toEqual([4, 3, 2, 1, 0]);
    expect(tries[5]).toMatchObject({ error: 'LOGIN_CODE_EXPIRED' });
  });

  it('limits codes: five wrong tries end a code, five codes per address per hour', async () => {
    const jar = new CookieJar();
    const start = await jar.fetch((await authorizationRequest(rp)).url);
    const login = new URL(start.headers.get('location')!, aerie.url).href;
    const post = (path: string, body: unknown) => jar.fetch(`${login}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const email = 'limits@acme.test';
    expect((await aerie.request('POST', '/api/org/acme/endusers', { token: acme.org.owner, body: { email, appGroupId: acme.groupId } })).status).toBe(201);
    expect((await post('/email-code', { email })).status).toBe(200);
    const code = /: (\d{6})$/m.exec(mailsTo(aerie.dataDir, email).at(-1)!)![1];
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) expect((await (await post('/email-code/verify', { email, code: wrong })).json()).error).toBe('LOGIN_CODE_INVALID');
    // The right code after five wrong tries: the code is spent.
    expect((await (await post('/email-code/verify', { email, code })).json()).error).toBe('LOGIN_CODE_EXPIRED');
    for (let i = 0; i < 4; i++) expect((await post('/email-code', { email })).status).toBe(200);
    const sixth = await post('/email-code', { email });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('reports login methods, and nothing for a disabled application', async () => {
    const methods = await aerie.request('GET', `/api/public/apps/${acme.clientId}/login-methods`);
    expect(methods.body).toMatchObject({ applicationKey: acme.clientId, methods: { emailCode: true, passkey: true, social: [], aerieAccount: false } });
    expect((await aerie.request('PATCH', `/api/org/acme/applications/${acme.appId}/status`, { token: acme.org.owner, body: { status: 'disabled' } })).status).toBe(200);
    expect((await aerie.request('GET', `/api/public/apps/${acme.clientId}/login-methods`)).status).toBe(404);
    const res = await authorize(acme.issuer, { ...base(acme), redirect_uri: REDIRECT_URI });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('invalid_client');
    expect((await aerie.request('PATCH', `/api/org/acme/applications/${acme.appId}/status`, { token: acme.org.owner, body: { status: 'active' } })).status).toBe(200);
    expect((await aerie.request('GET', '/api/public/apps/client_unknown/login-methods')).status).toBe(404);
  });
});

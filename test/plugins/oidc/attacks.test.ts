/**
 * The OpenID provider and the hosted login under the attacks a relying party's enemies try:
 * unregistered redirect URIs, PKCE left out or wrong, code replay, one organization's client or
 * token at another's issuer, `alg` and key confusion on every path that verifies a token, a sign-in finished from another site or browser, and
 * email-code guessing and enumeration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { createPublicKey } from 'node:crypto';
import { SignJWT, base64url, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { SECRET_CHECKED_ELSEWHERE } from '../../../plugins/oidc/client-metadata.ts';
import { createKey } from '../../helpers/api-keys.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { authorizationRequest, awaitLoginCode, browserSignIn, CookieJar, REDIRECT_URI, relyingParty, signInMailIdle, signInWorld, type SignInWorld } from './helpers.ts';

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
    // Basic client authentication refused: a 401 whose WWW-Authenticate challenge names the error.
    expect(await oidc.clientCredentialsGrant(atGlobex).then(() => 'granted', (e: { error?: string; cause?: Array<{ parameters?: { error?: string } }> }) => e.error ?? e.cause?.[0]?.parameters?.error))
      .toBe('invalid_client');

    const request = await authorizationRequest(rp);
    const tokens = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, new CookieJar(), request.url, acme.email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const globexRp = await relyingParty(globex);
    expect(await oidc.tokenIntrospection(globexRp, tokens.access_token)).toEqual({ active: false });
    const info = await fetch(`${globex.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    expect(await oidc.refreshTokenGrant(globexRp, tokens.refresh_token!).then(() => 'granted', (e: { error: string }) => e.error)).toBe('invalid_grant');
  });

  it('accepts RS256 with the organization key only: forged algorithms and keys are refused at userinfo, introspection, the owner gate and id_token_hint', async () => {
    // Its own end user: codes mailed to one address are limited per hour, and other tests here mail acme's.
    const email = 'alg@acme.test';
    expect((await aerie.request('POST', '/api/org/acme/endusers', { token: acme.org.owner, body: { email, appGroupId: acme.groupId } })).status).toBe(201);
    const request = await authorizationRequest(rp);
    const real = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, new CookieJar(), request.url, email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const jwks = await (await fetch(`${acme.issuer}/.well-known/jwks.json`)).json();
    const publicJwk = jwks.keys[0];
    const { kid } = publicJwk;
    const publicPem = createPublicKey({ key: publicJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const rsa = await generateKeyPair('RS256');
    const ec = await generateKeyPair('ES256');
    const attackerJwk = await exportJWK(rsa.publicKey);
    const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as JWTPayload;
    /** The real token's claims (grant, end user, audience, expiry all valid), signed every wrong way. */
    const forgeries = async (jwt: string, typ: string | undefined) => {
      const claims = { ...payloadOf(jwt), permissions: '["admin"]' };
      const sign = (header: Record<string, unknown>, key: Parameters<SignJWT['sign']>[0]) => new SignJWT(claims).setProtectedHeader({ ...header, ...(typ ? { typ } : {}) } as never).sign(key);
      return {
        'HS256 keyed with the public JWK': await sign({ alg: 'HS256', kid }, Buffer.from(JSON.stringify(publicJwk))),
        'HS256 keyed with the modulus': await sign({ alg: 'HS256', kid }, base64url.decode(publicJwk.n)),
        'HS256 keyed with the public key PEM': await sign({ alg: 'HS256', kid }, Buffer.from(publicPem)),
        'HS256 keyed with the client secret placeholder': await sign({ alg: 'HS256', kid }, Buffer.from(SECRET_CHECKED_ELSEWHERE)),
        'HS256 keyed with the client secret': await sign({ alg: 'HS256', kid }, Buffer.from(acme.clientSecret)),
        'alg none': `${base64url.encode(JSON.stringify({ alg: 'none', kid, ...(typ ? { typ } : {}) }))}.${base64url.encode(JSON.stringify(claims))}.`,
        'ES256 with another key': await sign({ alg: 'ES256', kid }, ec.privateKey),
        'RS256 with another key under the same kid': await sign({ alg: 'RS256', kid }, rsa.privateKey),
        'RS256 with another key embedded as jwk': await sign({ alg: 'RS256', jwk: attackerJwk }, rsa.privateKey),
        'the real signature over changed claims': `${jwt.split('.')[0]}.${base64url.encode(JSON.stringify(claims))}.${jwt.split('.')[2]}`,
      };
    };
    const key = (await createKey(aerie, acme.org)).value;
    const userinfo = (token: string) => fetch(`${acme.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    const introspect = async (token: string) => (await oidc.tokenIntrospection(rp, token)).active;
    const ownerStatus = async (token: string) => (await aerie.request('POST', '/api/public/v1/orgs/owner-status', { headers: { 'x-api-key': key, authorization: `Bearer ${token}` }, body: {} })).status;
    const logout = async (idToken: string) => {
      const res = await new CookieJar().fetch(oidc.buildEndSessionUrl(rp, { id_token_hint: idToken, post_logout_redirect_uri: REDIRECT_URI }).href);
      return { status: res.status, text: await res.text() };
    };

    // The real tokens pass every path: only the forgery makes a difference below.
    expect([await userinfo(real.access_token), await introspect(real.access_token), await ownerStatus(real.access_token)]).toEqual([200, true, 200]);
    expect((await logout(real.id_token!)).status).toBe(200);

    for (const [how, token] of Object.entries(await forgeries(real.access_token, 'at+jwt'))) {
      expect([await userinfo(token), await introspect(token), await ownerStatus(token)], how).toEqual([401, false, 401]);
    }
    for (const [how, idToken] of Object.entries(await forgeries(real.id_token!, undefined))) {
      const answer = await logout(idToken);
      expect(answer.status, how).toBe(400);
      expect(answer.text, how).toMatch(/could not validate id_token_hint|invalid_request/);
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
    await signInMailIdle(aerie);
    expect(mailsTo(aerie.dataDir, 'nobody@acme.test')).toEqual([]);
    const tries = [];
    for (let i = 0; i < 6; i++) tries.push(await (await post('/email-code/verify', { email: 'nobody@acme.test', code: String(100000 + i) })).json());
    expect(tries.slice(0, 5).map((t) => t.attemptsRemaining)).toEqual([4, 3, 2, 1, 0]);
    expect(tries[5]).toMatchObject({ error: 'LOGIN_CODE_EXPIRED' });
    // The page tells nothing, the organization's chain does: six failed attempts against an unknown account (no end user id, no code).
    const failed = await auditEvents(aerie, acme.org, 'org.end_user.sign_in_failed');
    expect(failed.map((e) => e.businessData)).toEqual(Array(6).fill({
      appGroupId: acme.groupId, clientKey: acme.clientId, method: 'email_code', reason: 'unknown_account', email: 'nobody@acme.test', ip: '127.0.0.1',
    }));
    expect(failed.every((e) => e.actorType === 'system')).toBe(true);
    expect(await auditEvents(aerie, globex.org, 'org.end_user.sign_in_failed')).toEqual([]);
  });

  it('limits codes: five wrong tries end a code, five codes per address per hour from one requester', async () => {
    const jar = new CookieJar();
    const start = await jar.fetch((await authorizationRequest(rp)).url);
    const login = new URL(start.headers.get('location')!, aerie.url).href;
    const post = (path: string, body: unknown) => jar.fetch(`${login}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const email = 'limits@acme.test';
    expect((await aerie.request('POST', '/api/org/acme/endusers', { token: acme.org.owner, body: { email, appGroupId: acme.groupId } })).status).toBe(201);
    expect((await post('/email-code', { email })).status).toBe(200);
    const code = await awaitLoginCode(aerie, email);
    const wrong = code === '000000' ? '000001' : '000000';
    const before = (await auditEvents(aerie, acme.org, 'org.end_user.sign_in_failed')).length;
    for (let i = 0; i < 5; i++) {
      const res = await post('/email-code/verify', { email, code: wrong });
      expect([res.status, await res.json()]).toEqual([400, { error: 'LOGIN_CODE_INVALID', message: 'That code is not right.', attemptsRemaining: 4 - i }]);
    }
    // The right code after five wrong tries: the code is spent.
    const spent = await post('/email-code/verify', { email, code });
    expect([spent.status, (await spent.json()).error]).toEqual([400, 'LOGIN_CODE_EXPIRED']);
    const [endUser] = await aerie.sql('select id from endusers.end_users where email_normalized = ?', [email]);
    const failed = (await auditEvents(aerie, acme.org, 'org.end_user.sign_in_failed')).slice(before).map((e) => e.businessData);
    const attempt = { appGroupId: acme.groupId, clientKey: acme.clientId, method: 'email_code', email, endUserId: endUser.id, ip: '127.0.0.1' };
    expect(failed).toEqual([...Array(5).fill({ ...attempt, reason: 'invalid_code' }), { ...attempt, reason: 'too_many_attempts' }]);
    expect(JSON.stringify(failed)).not.toContain(code);
    expect(await auditEvents(aerie, acme.org, 'org.end_user.signed_in')).not.toContainEqual(expect.objectContaining({ businessData: expect.objectContaining({ endUserId: endUser.id }) }));
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

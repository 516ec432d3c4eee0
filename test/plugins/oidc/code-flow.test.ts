/**
 * An organization as an OpenID provider, driven the way a relying party and a browser drive it:
 * openid-client discovers the issuer, the browser signs in on the hosted login with an emailed code,
 * the code is exchanged with PKCE, and every token verifies through the organization's JWKS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { authorizationRequest, browserSignIn, CookieJar, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: authorization code with PKCE through the hosted login', () => {
  let aerie: TestAerie;
  let world: SignInWorld;
  let rp: oidc.Configuration;

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    world = await signInWorld(aerie, 'acme');
    rp = await relyingParty(world);
  });
  afterAll(async () => aerie?.close());

  it('publishes the provider discovery document at the issuer, with the keys plugin JWKS', async () => {
    const meta = rp.serverMetadata();
    expect(meta.issuer).toBe(world.issuer);
    expect(meta.authorization_endpoint).toBe(`${world.issuer}/oauth/authorize`);
    expect(meta.token_endpoint).toBe(`${world.issuer}/oauth/token`);
    expect(meta.jwks_uri).toBe(`${world.issuer}/.well-known/jwks.json`);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(meta.response_types_supported).toEqual(['code']);
  });

  it('signs an end user in; the ID token, access token and userinfo describe that end user', async () => {
    const jar = new CookieJar();
    const request = await authorizationRequest(rp);
    const callback = await browserSignIn(aerie, jar, request.url, world.email);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: request.verifier, expectedState: request.state });

    const jwks = createRemoteJWKSet(new URL(`${world.issuer}/.well-known/jwks.json`));
    const id = await jwtVerify(tokens.id_token!, jwks, { issuer: world.issuer, audience: world.clientId, algorithms: ['RS256'] });
    expect(id.payload).toMatchObject({ sub: world.endUserId, email: world.email, email_verified: true });

    const access = await jwtVerify(tokens.access_token, jwks, { issuer: world.issuer, algorithms: ['RS256'], typ: 'at+jwt' });
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(access.payload).toMatchObject({ sub: world.endUserId, client_id: world.clientId, aud: `urn:aerie:app-group:${world.groupId}`, permissions: '[]', tenant_orgs: [] });
    expect((tokens as unknown as { tenant_orgs: unknown }).tenant_orgs).toEqual([]);
    expect(tokens.refresh_token).toBeTruthy();

    const info = await oidc.fetchUserInfo(rp, tokens.access_token, world.endUserId);
    expect(info).toEqual({ sub: world.endUserId, email: world.email, email_verified: true });

    // The end user was Pending; the code proved the address.
    const [row] = await aerie.sql('select status, email_verified_at from endusers.end_users where id = ?', [world.endUserId]);
    expect(row.status).toBe('Active');
    expect(row.email_verified_at).not.toBeNull();
    const events = await auditEvents(aerie, world.org, 'org.end_user.verified', 'org.end_user.signed_in');
    expect(events.map((e) => [e.eventType, e.businessData])).toEqual([
      ['org.end_user.verified', { endUserId: world.endUserId, via: 'email_code' }],
      // The client's address as the server saw it (no trusted proxy here), the end user's normalized address.
      ['org.end_user.signed_in', { endUserId: world.endUserId, appGroupId: world.groupId, clientKey: world.clientId, method: 'email_code', email: world.email, ip: '127.0.0.1' }],
    ]);
  });

  it('answers userinfo for an access token posted form-encoded (RFC 6750 2.2), and refuses two tokens in one request', async () => {
    const request = await authorizationRequest(rp);
    const tokens = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, new CookieJar(), request.url, world.email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const post = (body: URLSearchParams | undefined, headers: Record<string, string> = {}) => fetch(`${world.issuer}/oauth/userinfo`, {
      method: 'POST', headers: { ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers }, ...(body ? { body: body.toString() } : {}),
    });
    const expected = { sub: world.endUserId, email: world.email, email_verified: true };

    const form = await post(new URLSearchParams({ access_token: tokens.access_token }));
    expect(form.status).toBe(200);
    expect(await form.json()).toEqual(expected);
    const withCharset = await post(new URLSearchParams({ access_token: tokens.access_token }), { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' });
    expect(await withCharset.json()).toEqual(expected);
    const bearer = await post(undefined, { authorization: `Bearer ${tokens.access_token}` });
    expect(await bearer.json()).toEqual(expected);

    for (const [body, headers] of [
      [new URLSearchParams({ access_token: tokens.access_token }), { authorization: `Bearer ${tokens.access_token}` }],
      [new URLSearchParams([['access_token', tokens.access_token], ['access_token', tokens.access_token]]), {}],
    ] as const) {
      const twice = await post(body, headers);
      expect(twice.status).toBe(400);
      expect(twice.headers.get('www-authenticate')).toBe('Bearer error="invalid_request"');
      expect(await twice.json()).toMatchObject({ error: 'invalid_request' });
    }
    for (const body of [new URLSearchParams({ access_token: 'not.a.token' }), new URLSearchParams({ token: tokens.access_token }), new URLSearchParams()]) {
      const refused = await post(body);
      expect(refused.status, body.toString()).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
    // The field counts only in a form-encoded body.
    const plain = await post(undefined, { 'content-type': 'text/plain' });
    expect(plain.status).toBe(401);
    const textBody = await fetch(`${world.issuer}/oauth/userinfo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: `access_token=${tokens.access_token}` });
    expect(textBody.status).toBe(401);
    const json = await fetch(`${world.issuer}/oauth/userinfo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ access_token: tokens.access_token }) });
    expect(json.status).toBe(415);
  });

  it('puts the permissions an administrator set into the next token', async () => {
    const set = await aerie.request('PUT', `/api/org/acme/endusers/${world.endUserId}/groups/${world.groupId}/permissions`, {
      token: world.org.owner, body: { permissions: ['orders:read', 'orders:write', 'orders:read'] },
    });
    expect(set).toMatchObject({ status: 200, body: { permissions: ['orders:read', 'orders:write'] } });
    const request = await authorizationRequest(rp);
    const tokens = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, new CookieJar(), request.url, world.email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(JSON.parse(claims.permissions)).toEqual(['orders:read', 'orders:write']);
  });

  it('signs the end user out (RP-initiated logout) after a confirmation, ending the provider session', async () => {
    const jar = new CookieJar();
    const request = await authorizationRequest(rp);
    const tokens = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, jar, request.url, world.email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
    // Signed in at the provider: a new request comes straight back with a code.
    const silent = await jar.fetch((await authorizationRequest(rp)).url);
    expect(silent.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:4999\/callback\?code=/);

    const logoutUrl = oidc.buildEndSessionUrl(rp, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: REDIRECT_URI, state: 'bye' });
    const confirm = await jar.fetch(logoutUrl.href);
    expect(confirm.status).toBe(200);
    expect(confirm.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await confirm.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)![1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1];
    const done = await jar.fetch(new URL(action, aerie.url).href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ xsrf, logout: 'yes' }).toString() });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${REDIRECT_URI}?state=bye`);
    // Signed out: the next request needs the hosted login again.
    const after = await jar.fetch((await authorizationRequest(rp)).url);
    expect(after.headers.get('location')).toBe(`${aerie.url}/login/${world.clientId}`);
  });
});

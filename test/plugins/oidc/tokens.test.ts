/**
 * What happens to an end user's tokens after sign-in: refresh rotation and reuse detection,
 * revocation (RFC 7009), introspection (RFC 7662) that sees a suspension or a removed access at once,
 * and client credentials for Machine applications.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { TestAerie } from '../../helpers/harness.ts';
import { OrgPayloadAdapter } from '../../../plugins/oidc/adapter.ts';
import { authorizationRequest, browserSignIn, CookieJar, relyingParty, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: refresh, revocation, introspection, client credentials', () => {
  let aerie: TestAerie;
  let world: SignInWorld;
  let rp: oidc.Configuration;

  /** A fresh sign-in's tokens. */
  async function signIn(): Promise<oidc.TokenEndpointResponse> {
    const request = await authorizationRequest(rp);
    const callback = await browserSignIn(aerie, new CookieJar(), request.url, world.email);
    return oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: request.verifier, expectedState: request.state });
  }
  // An error body (ResponseBodyError), or a 401 with a WWW-Authenticate challenge (Basic client authentication refused).
  const grantError = (promise: Promise<unknown>) => promise.then(() => 'granted', (err: { error?: string; cause?: Array<{ parameters?: { error?: string } }> }) =>
    err.error ?? err.cause?.[0]?.parameters?.error ?? String(err));

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    world = await signInWorld(aerie, 'acme');
    rp = await relyingParty(world);
  });
  afterAll(async () => aerie?.close());

  it('rotates the refresh token on every use; reusing a spent one revokes the whole family', async () => {
    const first = await signIn();
    const second = await oidc.refreshTokenGrant(rp, first.refresh_token!);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    // The spent token again: refused, and the family (the newer token too) is revoked.
    expect(await grantError(oidc.refreshTokenGrant(rp, first.refresh_token!))).toBe('invalid_grant');
    expect(await grantError(oidc.refreshTokenGrant(rp, second.refresh_token!))).toBe('invalid_grant');
    // Every access token of the family is inactive at once, though none has expired.
    for (const token of [first.access_token, second.access_token]) {
      expect(await oidc.tokenIntrospection(rp, token)).toEqual({ active: false });
      expect((await fetch(`${world.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    }
  });

  const grantIdOf = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).grant_id as string;
  const grantRows = async (grantId: string) =>
    (await aerie.sql("select count(*)::int as count from oidc.payloads where grant_id = ? or (model = 'Grant' and id = ?)", [grantId, grantId]))[0].count;
  const refreshRaw = (refreshToken: string) => fetch(`${world.issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${world.clientId}:${world.clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
  });

  it.each([
    ['a refresh token', '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'a\u0000b' }, 400, { error: 'invalid_grant' }],
    ['a code', '/oauth/token', { grant_type: 'authorization_code', code: '\u0000', redirect_uri: 'https://app.example/cb', code_verifier: 'v'.repeat(43) }, 400, { error: 'invalid_grant' }],
    ['a lone surrogate refresh token', '/oauth/token', { grant_type: 'refresh_token', refresh_token: '\ud800' }, 400, { error: 'invalid_grant' }],
    ['an introspected token', '/oauth/introspect', { token: '\u0000' }, 200, { active: false }],
    ['an introspected refresh token', '/oauth/introspect', { token: 'x\u0000', token_type_hint: 'refresh_token' }, 200, { active: false }],
    ['a revoked token', '/oauth/revoke', { token: '\u0000' }, 200, undefined],
  ])('answers NUL or broken text in %s as an unknown token, never a 500', async (_label, path, form, status, body) => {
    const res = await fetch(`${world.issuer}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${world.clientId}:${world.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams(form as Record<string, string>).toString(),
    });
    expect(res.status).toBe(status);
    const text = await res.text();
    if (body) expect(JSON.parse(text)).toMatchObject(body);
  });

  it('takes only the client authentication method the client registered (client_secret_basic: a secret in the form is refused)', async () => {
    const form = (extra: Record<string, string>) => new URLSearchParams({ token: 'x', ...extra }).toString();
    const posted = await fetch(`${world.issuer}/oauth/introspect`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form({ client_id: world.clientId, client_secret: world.clientSecret }),
    });
    expect(posted.status).toBe(401);
    expect(await posted.json()).toMatchObject({ error: 'invalid_client' });
    const basic = await fetch(`${world.issuer}/oauth/introspect`, {
      method: 'POST', body: form({}),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${world.clientId}:${world.clientSecret}`).toString('base64')}` },
    });
    expect(basic.status).toBe(200);
  });

  it('lets only one of two concurrent uses of a refresh token succeed, and revokes the family', async () => {
    const first = await signIn();
    const answers = await Promise.all([refreshRaw(first.refresh_token!), refreshRaw(first.refresh_token!)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const won = await answers.find((a) => a.status === 200)!.json();
    expect(await answers.find((a) => a.status === 400)!.json()).toMatchObject({ error: 'invalid_grant' });
    // The other use was a reuse: the winner's new tokens are revoked with the family.
    expect(await grantError(oidc.refreshTokenGrant(rp, won.refresh_token))).toBe('invalid_grant');
    expect(await oidc.tokenIntrospection(rp, won.access_token)).toEqual({ active: false });
    expect(await oidc.tokenIntrospection(rp, first.access_token)).toEqual({ active: false });
    expect(await grantRows(grantIdOf(first.access_token))).toBe(0);
  });

  it('marks a refresh token used atomically: of two uses that both read it unused, the second fails and revokes the grant', async () => {
    // Embedded PGlite answers one statement at a time, so two HTTP requests rarely interleave between
    // reading the token and marking it; here the two uses interleave exactly there, on the real table.
    const first = await signIn();
    const adapter = new OrgPayloadAdapter('RefreshToken', world.org.id, aerie.kernel.db, { now: () => new Date() } as never, async () => undefined,
      () => Object.assign(new Error('refresh token already used'), { error: 'invalid_grant' }));
    const [a, b] = [await adapter.find(first.refresh_token!), await adapter.find(first.refresh_token!)];
    expect([a?.consumed, b?.consumed]).toEqual([undefined, undefined]);
    await adapter.consume(first.refresh_token!);
    await expect(adapter.consume(first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await grantRows(grantIdOf(first.access_token))).toBe(0);
    expect(await oidc.tokenIntrospection(rp, first.access_token)).toEqual({ active: false });
    expect(await grantError(oidc.refreshTokenGrant(rp, first.refresh_token!))).toBe('invalid_grant');
  });

  it('revokes a refresh token (RFC 7009): it no longer refreshes, and the access tokens of its grant are inactive at once', async () => {
    const tokens = await signIn();
    const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token!);
    expect((await oidc.tokenIntrospection(rp, refreshed.access_token)).active).toBe(true);
    await oidc.tokenRevocation(rp, refreshed.refresh_token!);
    expect(await grantError(oidc.refreshTokenGrant(rp, refreshed.refresh_token!))).toBe('invalid_grant');
    for (const token of [tokens.access_token, refreshed.access_token]) expect(await oidc.tokenIntrospection(rp, token)).toEqual({ active: false });
    const info = await fetch(`${world.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(info.status).toBe(401);
  });

  it('introspects an access token as active, and as inactive the moment the end user is suspended', async () => {
    const tokens = await signIn();
    const active = await oidc.tokenIntrospection(rp, tokens.access_token);
    expect(active).toMatchObject({ active: true, sub: world.endUserId, client_id: world.clientId, permissions: '[]', token_type: 'Bearer' });
    expect((await oidc.tokenIntrospection(rp, tokens.refresh_token!)).active).toBe(true);

    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${world.endUserId}/suspend`, { token: world.org.owner })).status).toBe(200);
    expect(await oidc.tokenIntrospection(rp, tokens.access_token)).toEqual({ active: false });
    expect(await oidc.tokenIntrospection(rp, tokens.refresh_token!)).toEqual({ active: false });
    const info = await fetch(`${world.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    expect(info.headers.get('www-authenticate')).toContain('invalid_token');
    expect(await grantError(oidc.refreshTokenGrant(rp, tokens.refresh_token!))).toBe('invalid_grant');

    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${world.endUserId}/activate`, { token: world.org.owner })).status).toBe(200);
    expect((await oidc.tokenIntrospection(rp, tokens.access_token)).active).toBe(true);
  });

  it('introspects as inactive once the end user loses access to the app group', async () => {
    const other = await signInWorld(aerie, 'globex', 'bo@globex.test');
    const otherRp = await relyingParty(other);
    const request = await authorizationRequest(otherRp);
    const tokens = await oidc.authorizationCodeGrant(otherRp, await browserSignIn(aerie, new CookieJar(), request.url, other.email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect((await oidc.tokenIntrospection(otherRp, tokens.access_token)).active).toBe(true);
    // Another organization's client cannot introspect it (the token is not of its issuer).
    expect(await oidc.tokenIntrospection(rp, tokens.access_token)).toEqual({ active: false });
    expect((await aerie.request('DELETE', `/api/org/globex/endusers/${other.endUserId}/groups/${other.groupId}`, { token: other.org.owner })).status).toBe(204);
    expect(await oidc.tokenIntrospection(otherRp, tokens.access_token)).toEqual({ active: false });
  });

  it('issues client-credentials tokens to a Machine application, and only to it', async () => {
    const created = await aerie.request('POST', `/api/org/acme/app-groups/${world.groupId}/apps`, { token: world.org.owner, body: { name: 'Worker', kind: 'Machine', environment: 'Production' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const machine = await relyingParty({ issuer: world.issuer, clientId: created.body.clientKey, clientSecret: created.body.clientSecret });
    const tokens = await oidc.clientCredentialsGrant(machine);
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ iss: world.issuer, client_id: created.body.clientKey, aud: `urn:aerie:app-group:${world.groupId}` });
    expect(claims.sub).toBe(created.body.clientKey);
    // A Web application has no client_credentials grant (oidc-provider answers invalid_request for it).
    const refused = await oidc.clientCredentialsGrant(rp).then(() => undefined, (err: { error: string; error_description: string }) => err);
    expect(refused).toMatchObject({ error: 'invalid_request', error_description: 'requested grant type is not allowed for this client' });
    const wrongSecret = await relyingParty({ issuer: world.issuer, clientId: created.body.clientKey, clientSecret: 'not-the-secret' });
    expect(await grantError(oidc.clientCredentialsGrant(wrongSecret))).toBe('invalid_client');
  });

  it('introspects a client-credentials token as active, and as inactive once the secret is rotated or the application disabled or deleted', async () => {
    const created = await aerie.request('POST', `/api/org/acme/app-groups/${world.groupId}/apps`, { token: world.org.owner, body: { name: 'Reporter', kind: 'Machine', environment: 'Production' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const appPath = `/api/org/acme/applications/${created.body.id}`;
    const machineOf = (clientSecret: string) => relyingParty({ issuer: world.issuer, clientId: created.body.clientKey, clientSecret });
    let machine = await machineOf(created.body.clientSecret);
    const tokens = await oidc.clientCredentialsGrant(machine);
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    const active = await oidc.tokenIntrospection(machine, tokens.access_token);
    expect(active).toEqual({
      active: true, token_type: 'Bearer', client_id: created.body.clientKey, sub: created.body.clientKey, iss: world.issuer,
      aud: `urn:aerie:app-group:${world.groupId}`, exp: claims.exp, iat: claims.iat, jti: claims.jti, ...(claims.scope ? { scope: claims.scope } : {}),
    });
    expect(active.exp! - active.iat!).toBe(900);
    // Only the client it was issued to may introspect it; it is no end user's token (userinfo refuses it).
    expect(await oidc.tokenIntrospection(rp, tokens.access_token)).toEqual({ active: false });
    const info = await fetch(`${world.issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);

    // Rotating the secret ends the tokens obtained with the old one (iat has whole seconds: rotate in a later second).
    await new Promise((resolve) => setTimeout(resolve, 1010 - (Date.now() % 1000)));
    const rotated = await aerie.request('POST', `${appPath}/rotate-secret`, { token: world.org.owner });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    machine = await machineOf(rotated.body.clientSecret);
    expect(await oidc.tokenIntrospection(machine, tokens.access_token)).toEqual({ active: false });
    const fresh = await oidc.clientCredentialsGrant(machine);
    expect((await oidc.tokenIntrospection(machine, fresh.access_token)).active).toBe(true);

    // Disabled: inactive to anyone asking, and the application itself can no longer authenticate; active again once re-enabled.
    expect((await aerie.request('PATCH', `${appPath}/status`, { token: world.org.owner, body: { status: 'disabled' } })).status).toBe(200);
    expect(await oidc.tokenIntrospection(rp, fresh.access_token)).toEqual({ active: false });
    expect(await grantError(oidc.tokenIntrospection(machine, fresh.access_token))).toBe('invalid_client');
    expect((await aerie.request('PATCH', `${appPath}/status`, { token: world.org.owner, body: { status: 'active' } })).status).toBe(200);
    expect((await oidc.tokenIntrospection(machine, fresh.access_token)).active).toBe(true);

    // Deleted: gone for good.
    expect((await aerie.request('DELETE', appPath, { token: world.org.owner })).status).toBe(204);
    expect(await grantError(oidc.tokenIntrospection(machine, fresh.access_token))).toBe('invalid_client');
  });
});

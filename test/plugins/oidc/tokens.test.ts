/**
 * What happens to an end user's tokens after sign-in: refresh rotation and reuse detection,
 * revocation (RFC 7009), introspection (RFC 7662) that sees a suspension or a removed access at once,
 * and client credentials for Machine applications.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { TestAerie } from '../../helpers/harness.ts';
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
  const grantError = (promise: Promise<unknown>) => promise.then(() => 'granted', (err: { error?: string }) => err.error ?? String(err));

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
  });

  it('revokes a refresh token (RFC 7009): it no longer refreshes', async () => {
    const tokens = await signIn();
    await oidc.tokenRevocation(rp, tokens.refresh_token!);
    expect(await grantError(oidc.refreshTokenGrant(rp, tokens.refresh_token!))).toBe('invalid_grant');
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

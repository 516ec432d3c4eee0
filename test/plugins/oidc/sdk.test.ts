/**
 * The SDK routes: a single-page or native application signs an end user in by emailed code over JSON
 * and exchanges the authorization code at the token endpoint with its PKCE verifier (openid-client),
 * getting the same tokens as through the hosted login.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { auditEvents } from '../../helpers/audit-events.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { awaitLoginCode, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld, createSpa } from './helpers.ts';

describe('oidc: SDK routes', () => {
  let aerie: TestAerie;
  let world: SignInWorld;
  let spa: { clientKey: string };
  const base = () => `/api/public/apps/${spa.clientKey}/auth`;

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    world = await signInWorld(aerie, 'acme');
    spa = await createSpa(aerie, world);
  });
  afterAll(async () => aerie?.close());

  async function start(extra: Record<string, unknown> = {}) {
    const verifier = oidc.randomPKCECodeVerifier();
    const res = await aerie.request('POST', `${base()}/start`, {
      body: { redirectUri: REDIRECT_URI, scope: 'openid email offline_access', codeChallenge: await oidc.calculatePKCECodeChallenge(verifier), codeChallengeMethod: 'S256', ...extra },
    });
    return { res, verifier };
  }

  it('signs in by emailed code and ends in the token endpoint\'s answer', async () => {
    const { res, verifier } = await start({ nonce: 'n-1' });
    expect(res).toMatchObject({ status: 201, body: { signInId: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expiresInSeconds: 600 } });
    const { signInId } = res.body;
    expect((await aerie.request('POST', `${base()}/email-code`, { body: { signInId, email: world.email } })).body).toEqual({ sent: true, expiresInSeconds: 600 });
    const done = await aerie.request('POST', `${base()}/email-code/verify`, { body: { signInId, email: world.email, code: await awaitLoginCode(aerie, world.email) } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.redirectUri).toBe(REDIRECT_URI);

    const rp = await relyingParty({ issuer: world.issuer, clientId: spa.clientKey, clientSecret: undefined as unknown as string });
    const callback = new URL(`${REDIRECT_URI}?code=${encodeURIComponent(done.body.code)}&iss=${encodeURIComponent(world.issuer)}`);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier, expectedNonce: 'n-1' });
    expect(tokens.claims()).toMatchObject({ sub: world.endUserId, email: world.email, amr: ['otp'], nonce: 'n-1' });
    const access = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(access).toMatchObject({ sub: world.endUserId, client_id: spa.clientKey, aud: `urn:aerie:app-group:${world.groupId}`, permissions: '[]' });
    expect(tokens.refresh_token).toBeTruthy();
    expect((await oidc.refreshTokenGrant(rp, tokens.refresh_token!)).access_token).toBeTruthy();
    // The handle is spent.
    expect((await aerie.request('POST', `${base()}/email-code`, { body: { signInId, email: world.email } })).body.error).toBe('SIGN_IN_NOT_FOUND');
    expect((await auditEvents(aerie, world.org, 'org.end_user.signed_in')).at(-1)!.businessData).toEqual({
      endUserId: world.endUserId, appGroupId: world.groupId, clientKey: spa.clientKey, method: 'email_code', email: world.email, ip: '127.0.0.1',
    });
  });

  it('audits a wrong code, an address nobody has and a replaced code, answering as before; a check with no code asked is not an attempt', async () => {
    const { res } = await start();
    const { signInId } = res.body;
    const before = (await auditEvents(aerie, world.org, 'org.end_user.sign_in_failed')).length;
    const verify = (email: string, code: string) => aerie.request('POST', `${base()}/email-code/verify`, { body: { signInId, email, code } });
    // No code asked for this address in this sign-in yet.
    expect(await verify(world.email, '123456')).toMatchObject({ status: 400, body: { error: 'LOGIN_CODE_EXPIRED', message: 'This code is no longer valid. Request a new one.' } });
    await aerie.request('POST', `${base()}/email-code`, { body: { signInId, email: world.email } });
    const code = await awaitLoginCode(aerie, world.email);
    const wrong = await verify(world.email, code === '000000' ? '000001' : '000000');
    expect([wrong.status, wrong.body]).toEqual([400, { error: 'LOGIN_CODE_INVALID', message: 'That code is not right.', attemptsRemaining: 4 }]);
    await aerie.request('POST', `${base()}/email-code`, { body: { signInId, email: 'Stranger@Example.TEST' } });
    expect(await verify('Stranger@Example.TEST', '123456')).toMatchObject({ status: 400, body: { error: 'LOGIN_CODE_INVALID', attemptsRemaining: 4 } });
    // The stranger's code replaced the end user's (one live code per sign-in): the right code is now spent.
    expect(await verify(world.email, code)).toMatchObject({ status: 400, body: { error: 'LOGIN_CODE_EXPIRED' } });
    const attempt = { appGroupId: world.groupId, clientKey: spa.clientKey, method: 'email_code', ip: '127.0.0.1' };
    expect((await auditEvents(aerie, world.org, 'org.end_user.sign_in_failed')).slice(before).map((e) => e.businessData)).toEqual([
      { ...attempt, reason: 'invalid_code', email: world.email, endUserId: world.endUserId },
      { ...attempt, reason: 'unknown_account', email: 'stranger@example.test' },
      { ...attempt, reason: 'expired_code', email: world.email, endUserId: world.endUserId },
    ]);
  });

  it('refuses an unregistered redirect URI, no openid, a scope the app may not ask for, and a wrong PKCE verifier', async () => {
    expect((await start({ redirectUri: `${REDIRECT_URI}/x` })).res).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'redirectUri' } });
    expect((await start({ scope: 'email' })).res).toMatchObject({ status: 400, body: { field: 'scope' } });
    expect((await start({ scope: 'openid admin' })).res).toMatchObject({ status: 400, body: { field: 'scope' } });
    expect((await start({ codeChallengeMethod: 'plain' })).res.status).toBe(400);

    const { res } = await start();
    const { signInId } = res.body;
    await aerie.request('POST', `${base()}/email-code`, { body: { signInId, email: world.email } });
    const done = await aerie.request('POST', `${base()}/email-code/verify`, { body: { signInId, email: world.email, code: await awaitLoginCode(aerie, world.email) } });
    const rp = await relyingParty({ issuer: world.issuer, clientId: spa.clientKey, clientSecret: undefined as unknown as string });
    const wrong = await oidc.authorizationCodeGrant(rp, new URL(`${REDIRECT_URI}?code=${encodeURIComponent(done.body.code)}&iss=${encodeURIComponent(world.issuer)}`), { pkceCodeVerifier: oidc.randomPKCECodeVerifier() })
      .then(() => 'granted', (e: { error: string }) => e.error);
    expect(wrong).toBe('invalid_grant');
  });

  it('refuses a third-party application: its end users consent on the hosted login', async () => {
    const created = await aerie.request('POST', `/api/org/acme/app-groups/${world.groupId}/apps`, {
      token: world.org.owner, body: { name: 'Partner SPA', kind: 'Spa', environment: 'Production', redirectUris: [REDIRECT_URI], firstParty: false },
    });
    expect(created.status).toBe(201);
    const res = await aerie.request('POST', `/api/public/apps/${created.body.clientKey}/auth/start`, {
      body: { redirectUri: REDIRECT_URI, scope: 'openid email', codeChallenge: 'a'.repeat(43), codeChallengeMethod: 'S256' },
    });
    expect(res).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'applicationKey' } });
    expect(await aerie.sql('select 1 from oidc.sdk_sign_ins where client_key = ?', [created.body.clientKey])).toEqual([]);
  });

  it("does not let one application's handle work for another", async () => {
    const { res } = await start();
    const other = `/api/public/apps/${world.clientId}/auth/email-code`;
    expect((await aerie.request('POST', other, { body: { signInId: res.body.signInId, email: world.email } })).body.error).toBe('SIGN_IN_NOT_FOUND');
  });
});

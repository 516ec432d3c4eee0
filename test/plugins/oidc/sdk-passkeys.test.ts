/**
 * The SDK routes' passkey method: a passkey an end user added on the hosted login signs them in to a
 * single-page application over JSON, the challenge bound to the SDK sign-in, with the hosted login's
 * checks (RP ID, origin, user verification, counter, signature), and the authorization code it answers
 * exchanges at the token endpoint (openid-client) for tokens of that end user.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { authorizationRequest, CookieJar, awaitLoginCode, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld, createSpa } from './helpers.ts';

describe('oidc: SDK passkey sign-in', () => {
  let aerie: TestAerie;
  let world: SignInWorld;
  let spa: { clientKey: string };
  let authenticator: SoftAuthenticator;
  let credentialId: string;
  const sdk = (path: string, body: unknown, clientKey = spa.clientKey) => aerie.request('POST', `/api/public/apps/${clientKey}/auth${path}`, { body });

  /** The hosted login's enrolment: an emailed-code sign-in, then a passkey added in it. */
  async function enrol(): Promise<string> {
    const jar = new CookieJar();
    const login = new URL((await jar.fetch((await authorizationRequest(await relyingParty(world))).url)).headers.get('location')!).href;
    const post = async (path: string, body: unknown = {}) => {
      const res = await jar.fetch(`${login}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    expect((await post('/email-code', { email: world.email })).status).toBe(200);
    expect((await post('/email-code/verify', { email: world.email, code: await awaitLoginCode(aerie, world.email) })).status).toBe(200);
    const options = await post('/passkey/register/options');
    const response = authenticator.createCredential(options.body.options);
    expect((await post('/passkey/register/verify', { response })).status).toBe(200);
    return response.id;
  }

  /** Starts an SDK sign-in for the SPA; answers the handle and the PKCE verifier. */
  async function start(clientKey = spa.clientKey): Promise<{ signInId: string; verifier: string }> {
    const verifier = oidc.randomPKCECodeVerifier();
    const res = await sdk('/start', { redirectUri: REDIRECT_URI, scope: 'openid email offline_access', codeChallenge: await oidc.calculatePKCECodeChallenge(verifier), codeChallengeMethod: 'S256', nonce: 'n-pk' }, clientKey);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { signInId: res.body.signInId, verifier };
  }

  const finishedAt = async (signInId: string) =>
    (await aerie.sql('select finished_at from oidc.sdk_sign_ins where handle_hash = ?', [createHash('sha256').update(signInId).digest('hex')]))[0].finished_at as Date | null;
  const counter = async () => (await aerie.sql('select counter::int as counter from oidc.passkeys where credential_id = ?', [credentialId]))[0].counter as number;

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    world = await signInWorld(aerie, 'acme');
    spa = await createSpa(aerie, world);
    authenticator = new SoftAuthenticator({ origin: new URL(aerie.kernel.config.loginUrl).origin, rpId: new URL(aerie.kernel.config.baseUrl).hostname });
    credentialId = await enrol();
  });
  afterAll(async () => aerie?.close());

  it('signs in with a passkey added on the hosted login and ends in tokens whose sub is the end user', async () => {
    const { signInId, verifier } = await start();
    const options = await sdk('/passkey/options', { signInId });
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    expect(options.body.options).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required', allowCredentials: [], challenge: expect.any(String) });
    const [challenge] = await aerie.sql('select org_id, interaction_uid, purpose from oidc.passkey_challenges where challenge = ?', [options.body.options.challenge]);
    const [row] = await aerie.sql('select id from oidc.sdk_sign_ins where client_key = ? and finished_at is null', [spa.clientKey]);
    expect(challenge).toEqual({ org_id: world.org.id, interaction_uid: `sdk:${row.id}`, purpose: 'signin' });

    const before = await counter();
    const done = await sdk('/passkey/verify', { signInId, response: authenticator.getAssertion(options.body.options) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ code: expect.any(String), redirectUri: REDIRECT_URI });
    expect(await counter()).toBeGreaterThan(before);
    expect((await aerie.sql('select finished_at is not null as finished from oidc.sdk_sign_ins where id = ?', [row.id]))[0].finished).toBe(true);
    const signIns = await auditEvents(aerie, world.org, 'org.end_user.signed_in');
    expect(signIns.at(-1)!.businessData).toMatchObject({ endUserId: world.endUserId, clientKey: spa.clientKey, method: 'passkey' });

    const rp = await relyingParty({ issuer: world.issuer, clientId: spa.clientKey, clientSecret: undefined as unknown as string });
    const callback = new URL(`${REDIRECT_URI}?code=${encodeURIComponent(done.body.code)}&iss=${encodeURIComponent(world.issuer)}`);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier, expectedNonce: 'n-pk' });
    expect(tokens.claims()).toMatchObject({ sub: world.endUserId, email: world.email, amr: ['hwk'], nonce: 'n-pk' });
    const access = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(access).toMatchObject({ sub: world.endUserId, client_id: spa.clientKey, aud: `urn:aerie:app-group:${world.groupId}` });
    expect(tokens.refresh_token).toBeTruthy();
    // The handle is finished: nothing more in it.
    expect(await sdk('/passkey/options', { signInId })).toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });
  });

  it("accepts the application's own origin (its redirect URI's, under the RP ID) and refuses a foreign one", async () => {
    const own = await start();
    const ownOptions = await sdk('/passkey/options', { signInId: own.signInId });
    const ok = await sdk('/passkey/verify', { signInId: own.signInId, response: authenticator.getAssertion(ownOptions.body.options, { origin: new URL(REDIRECT_URI).origin }) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    const foreign = await start();
    const options = await sdk('/passkey/options', { signInId: foreign.signInId });
    const refused = await sdk('/passkey/verify', { signInId: foreign.signInId, response: authenticator.getAssertion(options.body.options, { origin: 'https://evil.example' }) });
    expect(refused).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    expect(await finishedAt(foreign.signInId)).toBeNull();
  });

  it("refuses a wrong challenge, another sign-in's challenge, a replay, and another application's handle", async () => {
    const first = await start();
    const second = await start();
    const firstOptions = await sdk('/passkey/options', { signInId: first.signInId });
    const before = await counter();
    // A challenge nobody issued.
    expect(await sdk('/passkey/verify', { signInId: first.signInId, response: authenticator.getAssertion(firstOptions.body.options, { challenge: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }) }))
      .toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    // The first sign-in's challenge answered in the second sign-in.
    const crossed = authenticator.getAssertion(firstOptions.body.options);
    expect(await sdk('/passkey/verify', { signInId: second.signInId, response: crossed })).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    // A hosted sign-in's challenge answered here.
    const jar = new CookieJar();
    const login = new URL((await jar.fetch((await authorizationRequest(await relyingParty(world))).url)).headers.get('location')!).href;
    const hosted = await (await jar.fetch(`${login}/passkey/options`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
    expect(await sdk('/passkey/verify', { signInId: second.signInId, response: authenticator.getAssertion(hosted.options) })).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    expect(await counter()).toBe(before);

    // The SPA's handle at the web application of the same group: no such sign-in there.
    expect(await sdk('/passkey/options', { signInId: first.signInId }, world.clientId)).toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });
    const secondOptions = await sdk('/passkey/options', { signInId: second.signInId });
    expect(await sdk('/passkey/verify', { signInId: second.signInId, response: authenticator.getAssertion(secondOptions.body.options) }, world.clientId))
      .toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });

    // The right answer works once; the same assertion again is refused (challenge spent, sign-in finished).
    const good = authenticator.getAssertion(firstOptions.body.options);
    expect((await sdk('/passkey/verify', { signInId: first.signInId, response: good })).status).toBe(200);
    expect(await sdk('/passkey/verify', { signInId: first.signInId, response: good })).toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });
  });

  it('refuses a suspended end user, and both routes when the app group turns passkeys off', async () => {
    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${world.endUserId}/suspend`, { token: world.org.owner })).status).toBe(200);
    const suspended = await start();
    const options = await sdk('/passkey/options', { signInId: suspended.signInId });
    expect(await sdk('/passkey/verify', { signInId: suspended.signInId, response: authenticator.getAssertion(options.body.options) }))
      .toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${world.endUserId}/activate`, { token: world.org.owner })).status).toBe(200);

    const { signInId } = await start();
    const live = await sdk('/passkey/options', { signInId });
    expect((await aerie.request('PUT', `/api/org/acme/app-groups/${world.groupId}`, { token: world.org.owner, body: { branding: { passkeyEnabled: false } } })).status).toBe(200);
    expect(await sdk('/passkey/options', { signInId })).toMatchObject({ status: 403, body: { error: 'LOGIN_METHOD_OFF', method: 'passkey' } });
    expect(await sdk('/passkey/verify', { signInId, response: authenticator.getAssertion(live.body.options) }))
      .toMatchObject({ status: 403, body: { error: 'LOGIN_METHOD_OFF', method: 'passkey' } });
    expect(await finishedAt(signInId)).toBeNull();
  });
});

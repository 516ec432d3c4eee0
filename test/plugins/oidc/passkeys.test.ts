/**
 * End users' passkeys on the hosted login, driven by a software authenticator over HTTP: added only
 * right after an emailed-code sign-in in the same sign-in, then signing in alone; and refused for
 * another organization, a suspended end user, a replayed or re-counted assertion, a foreign origin,
 * and when the app group turns passkeys off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { authorizationRequest, CookieJar, loginCode, relyingParty, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: end users\' passkeys', () => {
  let aerie: TestAerie;
  let acme: SignInWorld;
  let globex: SignInWorld;
  let authenticator: SoftAuthenticator;

  /** A browser with a sign-in in progress at `world`'s login page. */
  async function startSignIn(world: SignInWorld) {
    const jar = new CookieJar();
    const start = await jar.fetch((await authorizationRequest(await relyingParty(world))).url);
    const login = new URL(start.headers.get('location')!).href;
    const post = async (path: string, body: unknown = {}) => {
      const res = await jar.fetch(`${login}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    return { jar, post };
  }
  /** Signs in by emailed code in a new sign-in and adds a passkey; answers the credential id. */
  async function enrol(world: SignInWorld): Promise<string> {
    const { post } = await startSignIn(world);
    expect((await post('/email-code', { email: world.email })).status).toBe(200);
    expect((await post('/email-code/verify', { email: world.email, code: loginCode(aerie, world.email) })).status).toBe(200);
    const options = await post('/passkey/register/options');
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    expect(options.body.options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    const response = authenticator.createCredential(options.body.options);
    const stored = await post('/passkey/register/verify', { response });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body.redirectTo).toMatch(/\/oauth\/authorize\//);
    return response.id;
  }

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    acme = await signInWorld(aerie, 'acme');
    globex = await signInWorld(aerie, 'globex');
    authenticator = new SoftAuthenticator({ origin: new URL(aerie.kernel.config.loginUrl).origin, rpId: new URL(aerie.kernel.config.baseUrl).hostname });
  });
  afterAll(async () => aerie?.close());

  it('adds a passkey only after an emailed-code sign-in, then signs in with it alone', async () => {
    const fresh = await startSignIn(acme);
    expect(await fresh.post('/passkey/register/options')).toMatchObject({ status: 403, body: { error: 'SIGN_IN_NOT_PROVEN' } });

    const credentialId = await enrol(acme);
    const rows = await aerie.sql('select org_id, end_user_id, rp_id, counter::int as counter from oidc.passkeys where credential_id = ?', [credentialId]);
    expect(rows).toEqual([{ org_id: acme.org.id, end_user_id: acme.endUserId, rp_id: '127.0.0.1', counter: 0 }]);

    const { post } = await startSignIn(acme);
    const options = await post('/passkey/options');
    expect(options.body.options).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required', allowCredentials: [] });
    const assertion = authenticator.getAssertion(options.body.options);
    const done = await post('/passkey/verify', { response: assertion });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.redirectTo).toMatch(/\/oauth\/authorize\//);
    // The same assertion again (its challenge is spent): refused.
    expect(await post('/passkey/verify', { response: assertion })).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
  });

  it('refuses a wrong origin, a counter that does not move forward and a corrupt signature', async () => {
    const cases = [{ origin: 'https://evil.example' }, { signCount: 0 }, { corruptSignature: true }];
    for (const overrides of cases) {
      const { post } = await startSignIn(acme);
      const options = await post('/passkey/options');
      const response = authenticator.getAssertion(options.body.options, overrides);
      expect(await post('/passkey/verify', { response }), JSON.stringify(overrides)).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    }
  });

  it("keeps organizations apart: acme's end user's passkey does not sign in at globex", async () => {
    const { post } = await startSignIn(globex);
    const options = await post('/passkey/options');
    const response = authenticator.getAssertion(options.body.options);
    expect(await post('/passkey/verify', { response })).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
  });

  it('refuses a suspended end user, and every passkey route when the app group turns passkeys off', async () => {
    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${acme.endUserId}/suspend`, { token: acme.org.owner })).status).toBe(200);
    const suspended = await startSignIn(acme);
    const options = await suspended.post('/passkey/options');
    expect(await suspended.post('/passkey/verify', { response: authenticator.getAssertion(options.body.options) })).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${acme.endUserId}/activate`, { token: acme.org.owner })).status).toBe(200);

    expect((await aerie.request('PUT', `/api/org/acme/app-groups/${acme.groupId}`, { token: acme.org.owner, body: { branding: { passkeyEnabled: false } } })).status).toBe(200);
    const off = await startSignIn(acme);
    for (const path of ['/passkey/options', '/passkey/register/options']) {
      expect(await off.post(path), path).toMatchObject({ status: 403, body: { error: 'LOGIN_METHOD_OFF', method: 'passkey' } });
    }
    expect((await aerie.request('GET', `/api/public/apps/${acme.clientId}/login-methods`)).body.methods.passkey).toBe(false);
  });
});

/**
 * End users' passkeys on the hosted login, driven by a software authenticator over HTTP: added only
 * right after an emailed-code sign-in in the same sign-in, then signing in alone; and refused for
 * another organization, a suspended end user, a replayed or re-counted assertion, a foreign origin,
 * and when the app group turns passkeys off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../helpers/audit-events.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { authorizationRequest, CookieJar, awaitLoginCode, relyingParty, signInWorld, type SignInWorld } from './helpers.ts';

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
  /** The `org.end_user.sign_in_failed` events of `world`'s organization after the first `skip`. */
  const failures = async (world: SignInWorld, skip = 0) => (await auditEvents(aerie, world.org, 'org.end_user.sign_in_failed')).slice(skip).map((e) => e.businessData);
  /** What every failed passkey attempt at `world`'s hosted login records besides its reason. */
  const attempt = (world: SignInWorld) => ({ appGroupId: world.groupId, clientKey: world.clientId, method: 'passkey', ip: '127.0.0.1' });

  /** Signs in by emailed code in a new sign-in and adds a passkey; answers the credential id. */
  async function enrol(world: SignInWorld): Promise<string> {
    const { post } = await startSignIn(world);
    expect((await post('/email-code', { email: world.email })).status).toBe(200);
    expect((await post('/email-code/verify', { email: world.email, code: await awaitLoginCode(aerie, world.email) })).status).toBe(200);
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
    expect((await auditEvents(aerie, acme.org, 'org.end_user.signed_in')).at(-1)!.businessData).toEqual({
      endUserId: acme.endUserId, appGroupId: acme.groupId, clientKey: acme.clientId, method: 'passkey', email: acme.email, ip: '127.0.0.1',
    });
    // The same assertion again (its challenge is spent): refused, and audited against the passkey's end user.
    const before = (await failures(acme)).length;
    expect(await post('/passkey/verify', { response: assertion })).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    expect(await failures(acme, before)).toEqual([{ ...attempt(acme), reason: 'passkey_rejected', endUserId: acme.endUserId }]);
  });

  it('refuses a wrong origin, a counter that does not move forward and a corrupt signature', async () => {
    const cases = [{ origin: 'https://evil.example' }, { signCount: 0 }, { corruptSignature: true }];
    const before = (await failures(acme)).length;
    for (const overrides of cases) {
      const { post } = await startSignIn(acme);
      const options = await post('/passkey/options');
      const response = authenticator.getAssertion(options.body.options, overrides);
      expect(await post('/passkey/verify', { response }), JSON.stringify(overrides)).toEqual({
        status: 400, body: { error: 'PASSKEY_FAILED', message: 'The passkey could not be verified. Try again, or sign in with an emailed code.' },
      });
    }
    // Each refusal is on the chain although its verification transaction rolled back.
    expect(await failures(acme, before)).toEqual(Array(3).fill({ ...attempt(acme), reason: 'passkey_rejected', endUserId: acme.endUserId }));
  });

  it("keeps organizations apart: acme's end user's passkey does not sign in at globex", async () => {
    const { post } = await startSignIn(globex);
    const options = await post('/passkey/options');
    const response = authenticator.getAssertion(options.body.options);
    expect(await post('/passkey/verify', { response })).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    // On globex's chain an unknown account (no end user), on acme's nothing.
    const acmeBefore = (await failures(acme)).length;
    expect(await failures(globex)).toEqual([{ ...attempt(globex), reason: 'unknown_account' }]);
    expect((await failures(acme)).length).toBe(acmeBefore);
  });

  it('refuses a suspended end user, and every passkey route when the app group turns passkeys off', async () => {
    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${acme.endUserId}/suspend`, { token: acme.org.owner })).status).toBe(200);
    const suspended = await startSignIn(acme);
    const options = await suspended.post('/passkey/options');
    const before = (await auditEvents(aerie, acme.org)).length;
    expect(await suspended.post('/passkey/verify', { response: authenticator.getAssertion(options.body.options) })).toMatchObject({ status: 400, body: { error: 'PASSKEY_FAILED' } });
    // The passkey was right, the end user may not sign in: one failure, no sign-in.
    expect((await auditEvents(aerie, acme.org)).slice(before).map((e) => [e.eventType, e.businessData])).toEqual([
      ['org.end_user.sign_in_failed', { ...attempt(acme), reason: 'suspended', endUserId: acme.endUserId }],
    ]);
    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${acme.endUserId}/activate`, { token: acme.org.owner })).status).toBe(200);

    expect((await aerie.request('PUT', `/api/org/acme/app-groups/${acme.groupId}`, { token: acme.org.owner, body: { branding: { passkeyEnabled: false } } })).status).toBe(200);
    const off = await startSignIn(acme);
    for (const path of ['/passkey/options', '/passkey/register/options']) {
      expect(await off.post(path), path).toMatchObject({ status: 403, body: { error: 'LOGIN_METHOD_OFF', method: 'passkey' } });
    }
    expect((await aerie.request('GET', `/api/public/apps/${acme.clientId}/login-methods`)).body.methods.passkey).toBe(false);
  });
});

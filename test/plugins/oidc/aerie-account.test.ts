/**
 * Sign-in with an Aerie account: a person signed in to Aerie (cookie session) signs in to another
 * organization's application as its end user — consent once per app group, verified email only,
 * matched by email inside the application's organization, `X-CSRF-Token` required, and only when
 * the app group offers the method.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { authorizationRequest, CookieJar, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: sign-in with an Aerie account', () => {
  let aerie: TestAerie;
  let shop: SignInWorld;
  let origin: string;
  let session: { cookie: string; csrf: string };

  /** Signs `email` in to Aerie with a cookie session (as Aerie's own pages do). */
  async function cookieSession(email: string): Promise<{ cookie: string; csrf: string }> {
    await aerie.request('POST', '/api/v1/users/registration/email', { body: { email } });
    const res = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email, code: aerie.code(email), session: 'cookie' }, headers: { origin } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: res.body.csrfToken };
  }
  const asPerson = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    aerie.request(method, path, { headers: { cookie: session.cookie, origin, 'x-csrf-token': session.csrf, ...extra }, ...(body !== undefined ? { body } : {}) });
  const enable = (on: boolean) => aerie.request('PUT', `/api/org/shop/app-groups/${shop.groupId}`, { token: shop.org.owner, body: { branding: { aerieAccountEnabled: on } } });

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    origin = new URL(aerie.kernel.config.baseUrl).origin;
    shop = await signInWorld(aerie, 'shop');
    session = await cookieSession('Pat@Example.com');
  });
  afterAll(async () => aerie?.close());

  it('is off until the app group turns it on', async () => {
    expect((await asPerson('GET', `/api/v1/aerie-account/apps/${shop.clientId}`)).body).toMatchObject({ enabled: false, consentRequired: true });
    expect(await asPerson('POST', `/api/v1/aerie-account/apps/${shop.clientId}/connect`, { consent: true })).toMatchObject({ status: 403, body: { error: 'AERIE_ACCOUNT_LOGIN_OFF' } });
    expect((await aerie.request('GET', `/api/public/apps/${shop.clientId}/login-methods`)).body.methods.aerieAccount).toBe(false);
    expect((await enable(true)).status).toBe(200);
    expect((await aerie.request('GET', `/api/public/apps/${shop.clientId}/login-methods`)).body.methods.aerieAccount).toBe(true);
  });

  it('needs consent the first time, the CSRF header always, and makes the person an end user by email', async () => {
    const preview = await asPerson('GET', `/api/v1/aerie-account/apps/${shop.clientId}`);
    expect(preview.body).toEqual({
      application: { key: shop.clientId, name: expect.any(String), appGroup: 'shop shop', organization: expect.any(String) },
      shares: ['name', 'email'], consentRequired: true, enabled: true, emailVerified: true,
    });
    const path = `/api/v1/aerie-account/apps/${shop.clientId}/connect`;
    expect(await asPerson('POST', path, {})).toMatchObject({ status: 409, body: { error: 'CONSENT_REQUIRED' } });
    const noCsrf = await aerie.request('POST', path, { headers: { cookie: session.cookie, origin }, body: { consent: true } });
    expect(noCsrf).toMatchObject({ status: 403, body: { error: 'CSRF_FAILED' } });
    expect(await aerie.sql('select * from oidc.account_consents')).toEqual([]);

    const connected = await asPerson('POST', path, { consent: true });
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    const [endUser] = await aerie.sql('select id, email_normalized, source, status from endusers.end_users where org_id = ? and email_normalized = ?', [shop.org.id, 'pat@example.com']);
    expect(endUser).toMatchObject({ source: 'Aerie' });
    expect(connected.body).toEqual({ connected: true, endUserId: endUser.id });
    // Consent given: the next connect needs none.
    expect((await asPerson('POST', path, {})).status).toBe(200);
    expect((await asPerson('GET', `/api/v1/aerie-account/apps/${shop.clientId}`)).body.consentRequired).toBe(false);
  });

  it('signs the person in on the hosted login as the end user with their email', async () => {
    const rp = await relyingParty(shop);
    const jar = new CookieJar();
    const request = await authorizationRequest(rp);
    const start = await jar.fetch(request.url);
    const login = new URL(start.headers.get('location')!).href;
    const page = await jar.fetch(`${login}/aerie`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('id="aerie"');
    expect(await (await jar.fetch(login)).text()).toContain(`href="/login/${shop.clientId}/aerie"`);
    expect((await fetch(`${login}/aerie`)).status).toBe(404);
    // The browser holds both the sign-in in progress and the person's Aerie session.
    const post = await fetch(`${login}/aerie/connect`, {
      method: 'POST', body: JSON.stringify({}),
      headers: { 'content-type': 'application/json', origin, 'x-csrf-token': session.csrf, cookie: `${jar.header(login)}; ${session.cookie}` },
    });
    expect(post.status, await post.clone().text()).toBe(200);
    const resumed = await jar.fetch((await post.json()).redirectTo);
    const callback = new URL(resumed.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const claims = tokens.claims()!;
    const [endUser] = await aerie.sql('select id from endusers.end_users where org_id = ? and email_normalized = ?', [shop.org.id, 'pat@example.com']);
    expect(claims).toMatchObject({ sub: endUser.id, email: 'pat@example.com', amr: ['aerie'] });
    // No account id reaches the application.
    const [account] = await aerie.sql("select id from accounts.accounts where email = 'pat@example.com'");
    expect(JSON.stringify(claims)).not.toContain(account.id);
    expect(tokens.access_token).not.toContain(account.id);
    const signIns = await auditEvents(aerie, shop.org, 'org.end_user.signed_in');
    expect(signIns.at(-1)!.businessData).toMatchObject({ endUserId: endUser.id, method: 'aerie_account' });
  });

  it('refuses a suspended end user, and the hosted connect without a sign-in in progress', async () => {
    const [endUser] = await aerie.sql('select id from endusers.end_users where org_id = ? and email_normalized = ?', [shop.org.id, 'pat@example.com']);
    expect((await aerie.request('PATCH', `/api/org/shop/endusers/${endUser.id}/suspend`, { token: shop.org.owner })).status).toBe(200);
    expect(await asPerson('POST', `/api/v1/aerie-account/apps/${shop.clientId}/connect`, {})).toMatchObject({ status: 403, body: { error: 'PERMISSION_DENIED' } });
    expect(await asPerson('POST', `/login/${shop.clientId}/aerie/connect`, {})).toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });
    expect((await aerie.request('GET', `/api/v1/aerie-account/apps/${shop.clientId}`)).status).toBe(401);
  });
});

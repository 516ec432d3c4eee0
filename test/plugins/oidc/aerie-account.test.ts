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
import { authorizationRequest, CookieJar, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld, createSpa } from './helpers.ts';

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
    expect((await auditEvents(aerie, shop.org, 'org.end_user.created')).at(-1)!.businessData).toMatchObject({ endUserId: endUser.id, source: 'Aerie', via: 'self_signup' });
    // The consent is on the chain once, with the person as the actor; the next connect needs none and records none.
    const consented = { eventType: 'org.end_user.consent_granted', actorType: 'account', actorId: expect.any(String),
      businessData: { endUserId: endUser.id, appGroupId: shop.groupId, clientKey: shop.clientId, scopes: ['name', 'email'], added: ['name', 'email'], via: 'aerie_account' } };
    expect(await auditEvents(aerie, shop.org, 'org.end_user.consent_granted')).toEqual([consented]);
    expect((await asPerson('POST', path, {})).status).toBe(200);
    expect(await auditEvents(aerie, shop.org, 'org.end_user.consent_granted')).toEqual([consented]);
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
    expect(signIns.at(-1)!.businessData).toEqual({
      endUserId: endUser.id, appGroupId: shop.groupId, clientKey: shop.clientId, method: 'aerie_account', email: 'pat@example.com', ip: '127.0.0.1',
    });
  });

  it('refuses a suspended end user, and the hosted connect without a sign-in in progress', async () => {
    const [endUser] = await aerie.sql('select id from endusers.end_users where org_id = ? and email_normalized = ?', [shop.org.id, 'pat@example.com']);
    expect((await aerie.request('PATCH', `/api/org/shop/endusers/${endUser.id}/suspend`, { token: shop.org.owner })).status).toBe(200);
    expect(await asPerson('POST', `/api/v1/aerie-account/apps/${shop.clientId}/connect`, {})).toMatchObject({ status: 403, body: { error: 'PERMISSION_DENIED' } });
    expect(await asPerson('POST', `/login/${shop.clientId}/aerie/connect`, {})).toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });
    expect((await aerie.request('GET', `/api/v1/aerie-account/apps/${shop.clientId}`)).status).toBe(401);
  });

  /** A sign-in in progress at the shop's hosted login, in a browser that also holds `person`'s Aerie session. */
  async function hostedSignIn(person: { cookie: string; csrf: string }) {
    const jar = new CookieJar();
    const request = await authorizationRequest(await relyingParty(shop));
    const start = await jar.fetch(request.url);
    const login = new URL(start.headers.get('location')!).href;
    const connect = (headers: Record<string, string>) => fetch(`${login}/aerie/connect`, {
      method: 'POST', body: JSON.stringify({ consent: true }),
      headers: { 'content-type': 'application/json', origin, cookie: `${jar.header(login)}; ${person.cookie}`, ...headers },
    });
    const interaction = async () => (await aerie.sql("select payload from oidc.payloads where org_id = ? and model = 'Interaction' and payload->'params'->>'state' = ?", [shop.org.id, request.state]))[0].payload;
    return { connect, interaction };
  }

  it('refuses an account whose email is not verified, on the API and on the hosted login, and connects nothing', async () => {
    const una = await cookieSession('una@example.com');
    // Accounts are verified when they are made; one whose email lost its verification (as after an address change) may not use the method.
    await aerie.sql("update accounts.accounts set email_verified_at = null where email = 'una@example.com'");
    const headers = { cookie: una.cookie, origin, 'x-csrf-token': una.csrf };
    const preview = await aerie.request('GET', `/api/v1/aerie-account/apps/${shop.clientId}`, { headers });
    expect(preview.body).toMatchObject({ emailVerified: false, enabled: true });
    const api = await aerie.request('POST', `/api/v1/aerie-account/apps/${shop.clientId}/connect`, { headers, body: { consent: true } });
    expect(api).toMatchObject({ status: 403, body: { error: 'ACCOUNT_EMAIL_UNVERIFIED' } });
    // A connect alone is no sign-in: nothing recorded.
    const failedBefore = (await auditEvents(aerie, shop.org, 'org.end_user.sign_in_failed')).length;

    const hosted = await hostedSignIn(una);
    const refused = await hosted.connect({ 'x-csrf-token': una.csrf });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'ACCOUNT_EMAIL_UNVERIFIED' });
    expect((await hosted.interaction()).result).toBeUndefined();
    const failed = (await auditEvents(aerie, shop.org, 'org.end_user.sign_in_failed')).slice(failedBefore);
    const [unaAccount] = await aerie.sql("select id from accounts.accounts where email = 'una@example.com'");
    expect(failed.map((e) => [e.actorType, e.actorId, e.businessData])).toEqual([['account', unaAccount.id, {
      appGroupId: shop.groupId, clientKey: shop.clientId, method: 'aerie_account', reason: 'email_unverified', email: 'una@example.com', ip: '127.0.0.1',
    }]]);
    expect(await aerie.sql('select 1 from endusers.end_users where org_id = ? and email_normalized = ?', [shop.org.id, 'una@example.com'])).toEqual([]);
    expect(await aerie.sql("select 1 from oidc.account_consents c join accounts.accounts a on a.id = c.account_id where a.email = 'una@example.com'")).toEqual([]);
  });

  it('refuses the hosted connect without the X-CSRF-Token header (or with another session\'s), finishing nothing', async () => {
    const kim = await cookieSession('kim@example.com');
    const hosted = await hostedSignIn(kim);
    const other = await cookieSession('lee@example.com');
    for (const headers of [{}, { 'x-csrf-token': other.csrf }, { 'x-csrf-token': '' }] as Array<Record<string, string>>) {
      const res = await hosted.connect(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'CSRF_FAILED' });
    }
    expect((await hosted.interaction()).result).toBeUndefined();
    expect(await aerie.sql('select 1 from endusers.end_users where org_id = ? and email_normalized = ?', [shop.org.id, 'kim@example.com'])).toEqual([]);
    // The same request with the header finishes the sign-in.
    const ok = await hosted.connect({ 'x-csrf-token': kim.csrf });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect((await hosted.interaction()).result).toMatchObject({ login: { amr: ['aerie'] } });
  });

  it('connects in an SDK sign-in and answers an authorization code that exchanges for the normal token response', async () => {
    const spa = (await createSpa(aerie, shop)).clientKey as string;
    const verifier = oidc.randomPKCECodeVerifier();
    const started = await aerie.request('POST', `/api/public/apps/${spa}/auth/start`, {
      body: { redirectUri: REDIRECT_URI, scope: 'openid email profile offline_access', codeChallenge: await oidc.calculatePKCECodeChallenge(verifier), codeChallengeMethod: 'S256', nonce: 'n-aerie' },
    });
    expect(started.status).toBe(201);
    const { signInId } = started.body;
    const sam = await cookieSession('sam@example.com');
    const path = `/api/public/apps/${spa}/auth/aerie-account/connect`;
    const connect = (body: unknown, headers: Record<string, string> = { 'x-csrf-token': sam.csrf }, key = spa) =>
      aerie.request('POST', `/api/public/apps/${key}/auth/aerie-account/connect`, { headers: { cookie: sam.cookie, origin, ...headers }, body });
    const finished = async () => (await aerie.sql('select finished_at from oidc.sdk_sign_ins where client_key = ?', [spa]))[0].finished_at;
    const samEndUser = () => aerie.sql('select id, source from endusers.end_users where org_id = ? and email_normalized = ?', [shop.org.id, 'sam@example.com']);

    // Refusals leave the sign-in live and connect nothing.
    expect(await connect({ signInId, consent: true }, {})).toMatchObject({ status: 403, body: { error: 'CSRF_FAILED' } });
    expect((await aerie.request('POST', path, { headers: { origin }, body: { signInId, consent: true } })).status).toBe(401);
    expect(await connect({ signInId })).toMatchObject({ status: 409, body: { error: 'CONSENT_REQUIRED' } });
    expect((await enable(false)).status).toBe(200);
    expect(await connect({ signInId, consent: true })).toMatchObject({ status: 403, body: { error: 'AERIE_ACCOUNT_LOGIN_OFF' } });
    expect((await enable(true)).status).toBe(200);
    expect(await connect({ signInId, consent: true }, undefined, shop.clientId)).toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });
    expect(await connect({ signInId: 'x'.repeat(43), consent: true })).toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });
    expect(await finished()).toBeNull();
    expect(await samEndUser()).toEqual([]);

    const done = await connect({ signInId, consent: true });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ code: expect.any(String), redirectUri: REDIRECT_URI });
    expect(await finished()).not.toBeNull();
    const [endUser] = await samEndUser();
    expect(endUser).toMatchObject({ source: 'Aerie' });
    const signIns = await auditEvents(aerie, shop.org, 'org.end_user.signed_in');
    expect(signIns.at(-1)!.businessData).toMatchObject({ endUserId: endUser.id, clientKey: spa, method: 'aerie_account' });
    // Finished once.
    expect(await connect({ signInId, consent: true })).toMatchObject({ status: 404, body: { error: 'SIGN_IN_NOT_FOUND' } });

    const rp = await relyingParty({ issuer: shop.issuer, clientId: spa, clientSecret: undefined as unknown as string });
    const callback = new URL(`${REDIRECT_URI}?code=${encodeURIComponent(done.body.code)}&iss=${encodeURIComponent(shop.issuer)}`);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier, expectedNonce: 'n-aerie' });
    expect(tokens.claims()).toMatchObject({ sub: endUser.id, email: 'sam@example.com', amr: ['aerie'], nonce: 'n-aerie' });
    expect((tokens as unknown as { tenant_orgs: unknown }).tenant_orgs).toEqual([]);
    expect(tokens.refresh_token).toBeTruthy();
    const [account] = await aerie.sql("select id from accounts.accounts where email = 'sam@example.com'");
    expect(JSON.stringify(tokens.claims())).not.toContain(account.id);
    expect(tokens.access_token).not.toContain(account.id);
  });
});

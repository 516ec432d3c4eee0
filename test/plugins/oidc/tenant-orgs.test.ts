/**
 * The marketplace's first parts and `tenant_orgs`: a platform administrator lists an app group,
 * another organization's Owner installs it (sealed), and a person who is an active member of that
 * organization signs in to the app with their Aerie account — their token names the organization.
 * An emailed-code sign-in by the same address never does (the account must prove the sign-in).
 * A listed app group offers sign-in with an Aerie account whatever its switch says; the SDK connect
 * carries tenant_orgs like the hosted one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { createOrg } from '../../helpers/orgs.ts';
import { addSealPasskey, authenticatorFor, signStepUp } from '../../helpers/passkey-flows.ts';
import { authorizationRequest, browserSignIn, CookieJar, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld, createSpa } from './helpers.ts';

describe('oidc: marketplace installs and tenant_orgs', () => {
  let aerie: TestAerie;
  let shop: SignInWorld;
  let groupKey: string;
  let admin: string;
  let pat: string;
  let origin: string;

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true, env: { AERIE_PLATFORM_ADMINS: 'root@aerie.test' } });
    origin = new URL(aerie.kernel.config.baseUrl).origin;
    shop = await signInWorld(aerie, 'shop', 'pat@example.com');
    groupKey = (await aerie.sql('select public_key from apps.app_groups where id = ?', [shop.groupId]))[0].public_key;
    expect((await aerie.request('PUT', `/api/org/shop/app-groups/${shop.groupId}`, { token: shop.org.owner, body: { branding: { aerieAccountEnabled: true } } })).status).toBe(200);
    admin = await aerie.signIn('root@aerie.test');
    pat = await aerie.signIn('pat@example.com');
    await createOrg(aerie, pat, 'customer');
  });
  afterAll(async () => aerie?.close());

  const install = async (slug: string, token: string, seal = true) => {
    const auth = authenticatorFor(aerie);
    if (seal) await addSealPasskey(aerie, token, auth);
    const body = seal ? { SealAssertionJson: (await signStepUp(aerie, token, auth, { purpose: 'integration.enable', subject: `${slug}|${groupKey}` })).assertion } : {};
    return aerie.request('POST', `/api/org/${slug}/integrations/app:${groupKey}/enable`, { token, body });
  };

  it('installs only a listed app group, only with a seal, never into its own organization', async () => {
    expect(await install('customer', pat, false)).toMatchObject({ status: 401, body: { error: 'STEPUP_REQUIRED' } });
    expect(await install('customer', pat)).toMatchObject({ status: 404, body: { error: 'APP_NOT_ON_MARKETPLACE' } });
    expect((await aerie.request('PUT', `/api/v1/admin/app-groups/${groupKey}/listing`, { token: pat, body: { listed: true } })).status).toBe(403);
    const listed = await aerie.request('PUT', `/api/v1/admin/app-groups/${groupKey}/listing`, { token: admin, body: { listed: true } });
    expect(listed).toMatchObject({ status: 200, body: { groupKey, listed: true, listedAt: expect.any(String) } });
    expect(await install('shop', shop.org.owner)).toMatchObject({ status: 400, body: { error: 'OWN_APP' } });
    const done = await install('customer', pat);
    expect(done).toMatchObject({ status: 201, body: { appGroupId: shop.groupId, groupKey } });
    expect((await install('customer', pat)).status).toBe(200);
    expect(await aerie.sql('select count(*)::int as n from apps.installations')).toEqual([{ n: 1 }]);
    expect((await auditEvents(aerie, { slug: 'customer' }, 'org.integration.enabled'))).toHaveLength(1);
    expect((await auditEvents(aerie, shop.org, 'org.app_group.listed'))).toHaveLength(1);
  });

  it("names the installing organizations the person belongs to in tenant_orgs, only for an Aerie-account sign-in", async () => {
    const rp = await relyingParty(shop);
    // By emailed code (the same address): no tenant_orgs.
    const byCode = await authorizationRequest(rp);
    const codeTokens = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, new CookieJar(), byCode.url, 'pat@example.com'), { pkceCodeVerifier: byCode.verifier, expectedState: byCode.state });
    expect((codeTokens as unknown as { tenant_orgs: unknown }).tenant_orgs).toEqual([]);

    // With the Aerie account (cookie session).
    await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'pat@example.com' } });
    const signedIn = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'pat@example.com', code: aerie.code('pat@example.com'), session: 'cookie' }, headers: { origin } });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
    const jar = new CookieJar();
    const request = await authorizationRequest(rp);
    const login = new URL((await jar.fetch(request.url)).headers.get('location')!).href;
    const connect = await fetch(`${login}/aerie/connect`, {
      method: 'POST', body: JSON.stringify({ consent: true }),
      headers: { 'content-type': 'application/json', origin, 'x-csrf-token': signedIn.body.csrfToken, cookie: `${jar.header(login)}; ${cookie}` },
    });
    expect(connect.status, await connect.clone().text()).toBe(200);
    const callback = new URL((await jar.fetch((await connect.json()).redirectTo)).headers.get('location')!);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const expected = [{ slug: 'customer', name: expect.any(String) }];
    expect((tokens as unknown as { tenant_orgs: unknown }).tenant_orgs).toEqual(expected);
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(claims.tenant_orgs).toEqual(expected);

    // Recomputed on every token: a refresh carries it while the installation stands, and not after.
    const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token!);
    expect((refreshed as unknown as { tenant_orgs: unknown }).tenant_orgs).toEqual(expected);
    await aerie.sql('delete from apps.installations');
    const again = await oidc.refreshTokenGrant(rp, refreshed.refresh_token!);
    expect((again as unknown as { tenant_orgs: unknown }).tenant_orgs).toEqual([]);
  });

  it('offers sign-in with an Aerie account while the app group is listed, whatever the switch says; delisted, the switch decides again', async () => {
    // A person with a verified account and a cookie session (consented before, in the previous test).
    await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'pat@example.com' } });
    const signedIn = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'pat@example.com', code: aerie.code('pat@example.com'), session: 'cookie' }, headers: { origin } });
    const asPat = { cookie: signedIn.headers.get('set-cookie')!.split(';')[0], origin, 'x-csrf-token': signedIn.body.csrfToken };
    const methods = async () => (await aerie.request('GET', `/api/public/apps/${shop.clientId}/login-methods`)).body.methods.aerieAccount;
    const preview = async () => (await aerie.request('GET', `/api/v1/aerie-account/apps/${shop.clientId}`, { headers: asPat })).body.enabled;
    const connect = () => aerie.request('POST', `/api/v1/aerie-account/apps/${shop.clientId}/connect`, { headers: asPat, body: { consent: true } });
    const hostedPage = async () => {
      const jar = new CookieJar();
      const login = new URL((await jar.fetch((await authorizationRequest(await relyingParty(shop))).url)).headers.get('location')!).href;
      return { start: await (await jar.fetch(login)).text(), aerie: await (await jar.fetch(`${login}/aerie`)).text() };
    };
    const setListing = (listed: boolean) => aerie.request('PUT', `/api/v1/admin/app-groups/${groupKey}/listing`, { token: admin, body: { listed } });
    const setSwitch = (on: boolean) => aerie.request('PUT', `/api/org/shop/app-groups/${shop.groupId}`, { token: shop.org.owner, body: { branding: { aerieAccountEnabled: on } } });

    // Listed (the first test listed it) and the switch off: still on everywhere.
    expect((await setSwitch(false)).status).toBe(200);
    expect(await aerie.sql("select listed_at is not null as listed, branding->>'aerieAccountEnabled' as switch from apps.app_groups where id = ?", [shop.groupId])).toEqual([{ listed: true, switch: 'false' }]);
    expect(await methods()).toBe(true);
    expect(await preview()).toBe(true);
    expect(await connect()).toMatchObject({ status: 200, body: { connected: true } });
    const listedPages = await hostedPage();
    expect(listedPages.start).toContain('id="aerie-account"');
    expect(listedPages.aerie).toContain('id="aerie"');

    // Delisted: the switch (off) decides.
    expect(await setListing(false)).toMatchObject({ status: 200, body: { groupKey, listed: false, listedAt: null } });
    expect(await auditEvents(aerie, shop.org, 'org.app_group.delisted')).toHaveLength(1);
    expect(await methods()).toBe(false);
    expect(await preview()).toBe(false);
    expect(await connect()).toMatchObject({ status: 403, body: { error: 'AERIE_ACCOUNT_LOGIN_OFF' } });
    const delistedPages = await hostedPage();
    expect(delistedPages.start).not.toContain('id="aerie-account"');
    expect(delistedPages.aerie).toContain('data-state="off"');

    // The switch on again: on, though not listed.
    expect((await setSwitch(true)).status).toBe(200);
    expect(await methods()).toBe(true);
    expect(await connect()).toMatchObject({ status: 200, body: { connected: true } });
  });

  it('carries tenant_orgs after an SDK sign-in with the Aerie account, as after the hosted one', async () => {
    expect((await aerie.request('PUT', `/api/v1/admin/app-groups/${groupKey}/listing`, { token: admin, body: { listed: true } })).status).toBe(200);
    expect((await install('customer', pat)).status).toBe(201);
    const spa = (await createSpa(aerie, shop)).clientKey as string;
    const verifier = oidc.randomPKCECodeVerifier();
    const started = await aerie.request('POST', `/api/public/apps/${spa}/auth/start`, {
      body: { redirectUri: REDIRECT_URI, scope: 'openid email offline_access', codeChallenge: await oidc.calculatePKCECodeChallenge(verifier), codeChallengeMethod: 'S256' },
    });
    await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'pat@example.com' } });
    const signedIn = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'pat@example.com', code: aerie.code('pat@example.com'), session: 'cookie' }, headers: { origin } });
    const done = await aerie.request('POST', `/api/public/apps/${spa}/auth/aerie-account/connect`, {
      headers: { cookie: signedIn.headers.get('set-cookie')!.split(';')[0], origin, 'x-csrf-token': signedIn.body.csrfToken }, body: { signInId: started.body.signInId },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const rp = await relyingParty({ issuer: shop.issuer, clientId: spa, clientSecret: undefined as unknown as string });
    const tokens = await oidc.authorizationCodeGrant(rp, new URL(`${REDIRECT_URI}?code=${encodeURIComponent(done.body.code)}&iss=${encodeURIComponent(shop.issuer)}`), { pkceCodeVerifier: verifier });
    expect(tokens.claims()).toMatchObject({ sub: shop.endUserId, amr: ['aerie'] });
    const expected = [{ slug: 'customer', name: expect.any(String) }];
    expect((tokens as unknown as { tenant_orgs: unknown }).tenant_orgs).toEqual(expected);
    expect(JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString()).tenant_orgs).toEqual(expected);
  });
});

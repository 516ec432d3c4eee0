/**
 * Consent on the hosted login: a third-party application (`firstParty: false`) gets only what the end
 * user allowed on the consent page, once per scope; Deny ends the sign-in with `access_denied`;
 * `prompt=consent` asks any application's end user. Driven through HTTP as a browser would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { authorizationRequest, CookieJar, awaitLoginCode, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: consent for third-party applications', () => {
  let aerie: TestAerie;
  let world: SignInWorld;
  let partner: { clientId: string; clientSecret: string; appId: string };
  let partnerRp: oidc.Configuration;

  /** Where a browser ends after following `next`: back at the client, or on a hosted login page. */
  async function follow(jar: CookieJar, next: string): Promise<{ callback?: URL; page?: { url: string; status: number; html: string; csp: string | null } }> {
    for (let hops = 0; hops < 6; hops++) {
      if (next.startsWith(REDIRECT_URI)) return { callback: new URL(next) };
      const url = new URL(next, aerie.url).href;
      const res = await jar.fetch(url);
      if (res.status === 302 || res.status === 303) {
        next = res.headers.get('location')!;
        continue;
      }
      return { page: { url, status: res.status, html: await res.text(), csp: res.headers.get('content-security-policy') } };
    }
    throw new Error('too many redirects');
  }

  /** An authorization request, signed in by emailed code; answers where the browser ends next. */
  async function signIn(rp: oidc.Configuration, jar: CookieJar, email: string, extra: Record<string, string> = {}) {
    const request = await authorizationRequest(rp, extra);
    const start = await jar.fetch(request.url);
    const login = new URL(start.headers.get('location')!, aerie.url).href;
    expect((await jar.fetch(login)).status).toBe(200);
    const post = (path: string, body: unknown) => jar.fetch(`${login}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/email-code', { email })).status).toBe(200);
    const verified = await post('/email-code/verify', { email, code: await awaitLoginCode(aerie, email) });
    expect(verified.status, await verified.clone().text()).toBe(200);
    return { request, login, ...(await follow(jar, (await verified.json()).redirectTo)) };
  }
  const answer = (jar: CookieJar, login: string, decision: string, headers: Record<string, string> = {}) =>
    jar.fetch(`${login}/consent`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ decision }) });

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    world = await signInWorld(aerie, 'acme');
    const created = await aerie.request('POST', `/api/org/acme/app-groups/${world.groupId}/apps`, {
      token: world.org.owner, body: { name: 'Partner CRM', kind: 'Web', environment: 'Production', redirectUris: [REDIRECT_URI], firstParty: false },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.firstParty).toBe(false);
    partner = { clientId: created.body.clientKey, clientSecret: created.body.clientSecret, appId: created.body.id };
    partnerRp = await relyingParty({ issuer: world.issuer, ...partner });
  });
  afterAll(async () => aerie?.close());

  it("shows a third-party application's end user a consent page; Allow grants the scopes and the next sign-in skips it", async () => {
    const jar = new CookieJar();
    const { request, login, page, callback } = await signIn(partnerRp, jar, world.email);
    expect(callback).toBeUndefined();
    expect(page).toMatchObject({ url: login, status: 200 });
    expect(page!.csp).toBe("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(page!.html).toContain('Allow Partner CRM to access your acme shop account?');
    expect(page!.html).toContain('id="third-party"');
    // The request's scopes as the provider took them (it drops offline_access without prompt=consent; refresh tokens follow the grant type).
    expect([...page!.html.matchAll(/data-scope="([^"]+)"/g)].map((m) => m[1])).toEqual(['openid', 'email', 'profile']);
    expect(page!.html).toContain('See your email address');
    expect(page!.html).toContain('<script src="/login/assets/consent.js" defer></script>');
    expect((await aerie.request('GET', '/login/assets/consent.js')).status).toBe(200);
    // Nothing is granted before the answer: the page's answer from another site is no answer.
    expect((await answer(jar, login, 'allow', { origin: 'https://evil.example' })).status).toBe(404);
    expect(await aerie.sql('select * from oidc.end_user_consents')).toEqual([]);

    const allowed = await answer(jar, login, 'allow');
    expect(allowed.status, await allowed.clone().text()).toBe(200);
    const back = await follow(jar, (await allowed.json()).redirectTo);
    const tokens = await oidc.authorizationCodeGrant(partnerRp, back.callback!, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens.claims()).toMatchObject({ sub: world.endUserId, email: world.email });
    expect(tokens.refresh_token).toBeTruthy();
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(claims.scope.split(' ').sort()).toEqual(['email', 'openid', 'profile']);
    const rows = await aerie.sql('select org_id, end_user_id, client_key, scopes from oidc.end_user_consents');
    expect(rows).toEqual([{ org_id: world.org.id, end_user_id: world.endUserId, client_key: partner.clientId, scopes: ['openid', 'email', 'profile'] }]);
    // The answer is on the organization's audit chain (the refused cross-site answer is not).
    expect(await auditEvents(aerie, world.org, 'org.end_user.consent_granted', 'org.end_user.consent_denied')).toEqual([{
      eventType: 'org.end_user.consent_granted', actorType: 'system', actorId: 'system',
      businessData: { endUserId: world.endUserId, appGroupId: world.groupId, clientKey: partner.clientId, scopes: ['openid', 'email', 'profile'], added: ['openid', 'email', 'profile'] },
    }]);

    // The consent is kept: a sign-in in a new browser goes straight back to the application.
    const again = await signIn(partnerRp, new CookieJar(), world.email);
    expect(again.page).toBeUndefined();
    expect(again.callback!.searchParams.get('code')).toBeTruthy();
    // Answering again when nothing is asked: no sign-in asks for consent here.
    expect(await (await answer(jar, login, 'allow')).json()).toMatchObject({ error: 'SIGN_IN_NOT_FOUND' });
  });

  it('ends the sign-in with access_denied at the redirect URI when the end user denies, granting nothing', async () => {
    const email = 'bo@acme.test';
    const bo = await aerie.request('POST', '/api/org/acme/endusers', { token: world.org.owner, body: { email, appGroupId: world.groupId } });
    expect(bo.status).toBe(201);
    const jar = new CookieJar();
    const { request, login, page } = await signIn(partnerRp, jar, email);
    expect(page?.html).toContain('id="deny"');
    const denied = await answer(jar, login, 'deny');
    expect(denied.status).toBe(200);
    const { callback } = await follow(jar, (await denied.json()).redirectTo);
    expect(callback!.searchParams.get('error')).toBe('access_denied');
    expect(callback!.searchParams.get('state')).toBe(request.state);
    expect(callback!.searchParams.get('code')).toBeNull();
    expect(await aerie.sql('select 1 from oidc.end_user_consents where end_user_id = ?', [bo.body.id])).toEqual([]);
    const denials = (await auditEvents(aerie, world.org, 'org.end_user.consent_denied')).filter((e) => e.businessData.endUserId === bo.body.id);
    expect(denials).toEqual([{
      eventType: 'org.end_user.consent_denied', actorType: 'system', actorId: 'system',
      businessData: { endUserId: bo.body.id, appGroupId: world.groupId, clientKey: partner.clientId, scopes: ['openid', 'email', 'profile'] },
    }]);
    expect((await answer(jar, login, 'maybe')).status).toBe(400);
  });

  it('asks the end user of a first-party application too when the client sends prompt=consent', async () => {
    const rp = await relyingParty(world);
    const jar = new CookieJar();
    const { request, login, page } = await signIn(rp, jar, world.email, { prompt: 'consent' });
    expect(page?.status).toBe(200);
    expect(page!.html).toContain('id="allow"');
    expect(page!.html).not.toContain('id="third-party"');
    const allowed = await answer(jar, login, 'allow');
    const { callback } = await follow(jar, (await allowed.json()).redirectTo);
    const tokens = await oidc.authorizationCodeGrant(rp, callback!, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens.claims()).toMatchObject({ sub: world.endUserId });
    // Without prompt=consent the first-party application never shows the page.
    const plain = await signIn(rp, new CookieJar(), world.email);
    expect(plain.callback!.searchParams.get('code')).toBeTruthy();
  });

  it("asks a Native application's end user on every sign-in (the provider's rule for native clients)", async () => {
    const created = await aerie.request('POST', `/api/org/acme/app-groups/${world.groupId}/apps`, {
      token: world.org.owner, body: { name: 'Shop iOS', kind: 'Native', environment: 'Production', redirectUris: [REDIRECT_URI] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rp = await oidc.discovery(new URL(world.issuer), created.body.clientKey, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const email = 'cy@acme.test';
    expect((await aerie.request('POST', '/api/org/acme/endusers', { token: world.org.owner, body: { email, appGroupId: world.groupId } })).status).toBe(201);
    const jar = new CookieJar();
    const first = await signIn(rp, jar, email);
    expect(first.page?.html).toContain('id="allow"');
    expect(first.page!.html).not.toContain('id="third-party"');
    const { callback } = await follow(jar, (await (await answer(jar, first.login, 'allow')).json()).redirectTo);
    const tokens = await oidc.authorizationCodeGrant(rp, callback!, { pkceCodeVerifier: first.request.verifier, expectedState: first.request.state });
    expect(tokens.claims()).toMatchObject({ email });
    // Signed in at the provider already: the next request still stops at the consent page.
    const again = await authorizationRequest(rp);
    const next = await follow(jar, again.url);
    expect(next.page?.html).toContain('id="allow"');
  });
});

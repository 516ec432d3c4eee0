import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { LocalOidcProvider } from '../../helpers/local-oidc-provider.ts';
import { createKey } from '../../helpers/api-keys.ts';
import { createOrg } from '../../helpers/orgs.ts';
import { authorizationRequest, CookieJar, REDIRECT_URI, relyingParty, signInWorld, type SignInWorld, createSpa } from './helpers.ts';

/** Social sign-in on the hosted login against a local upstream OpenID provider (docs/api/signin.md "Social sign-in"). */
describe('oidc: social sign-in through an upstream OpenID provider', () => {
  let aerie: TestAerie;
  let idp: LocalOidcProvider;
  let world: SignInWorld;
  let other: SignInWorld;
  let rp: oidc.Configuration;
  let spaKey: string;

  const connections = (w: SignInWorld, provider = 'oidc') => `/api/org/${w.org.slug}/app-groups/${w.groupId}/social-connections/${provider}`;
  const connect = (w: SignInWorld, body: Record<string, unknown>, provider = 'oidc') => aerie.request('PUT', connections(w, provider), { token: w.org.owner, body });

  /** Authorization request → hosted login → the provider's button: answers the jar and the callback the IdP sends the browser to. */
  async function toCallback(): Promise<{ jar: CookieJar; callback: URL; request: Awaited<ReturnType<typeof authorizationRequest>> }> {
    const jar = new CookieJar();
    const request = await authorizationRequest(rp);
    const start = await jar.fetch(request.url);
    expect(start.status).toBe(303);
    const loginPage = new URL(start.headers.get('location')!, aerie.url);
    const page = await jar.fetch(loginPage.href);
    expect(await page.text()).toContain(`href="/login/${world.clientId}/social/oidc"`);
    const go = await jar.fetch(`${loginPage.href}/social/oidc`);
    expect(go.status, await go.clone().text()).toBe(303);
    const authorize = new URL(go.headers.get('location')!);
    expect(authorize.origin).toBe(idp.issuer);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: 'aerie', redirect_uri: `${aerie.url}/login/${world.clientId}/social/oidc/callback`, code_challenge_method: 'S256',
      state: expect.any(String), nonce: expect.any(String),
    });
    return { jar, callback: await idp.browse(authorize.href), request };
  }

  /** Follows the provider's resume redirects from the callback's answer to the client's redirect URI. */
  async function backToClient(jar: CookieJar, res: Response): Promise<URL> {
    expect(res.status, await res.clone().text()).toBe(303);
    let next = res.headers.get('location')!;
    for (let hops = 0; hops < 5 && !next.startsWith(REDIRECT_URI); hops++) {
      const hop = await jar.fetch(new URL(next, aerie.url).href);
      next = hop.headers.get('location')!;
    }
    return new URL(next);
  }

  beforeAll(async () => {
    const tls = LocalOidcProvider.certificate();
    aerie = await TestAerie.start({ exactBaseUrl: true, overrides: { 'egress.allowLoopback': true, 'egress.caFiles': [tls.cert] } });
    world = await signInWorld(aerie, 'acme');
    other = await signInWorld(aerie, 'globex');
    spaKey = (await createSpa(aerie, world)).clientKey;
    idp = await LocalOidcProvider.start(tls, [world.clientId, spaKey].map((key) => `${aerie.url}/login/${key}/social/oidc/callback`));
    rp = await relyingParty(world);
  });
  afterAll(async () => {
    await aerie?.close();
    await idp?.close();
  });

  it('connects the app group (endpoints from discovery, the secret never answered), audited, and offers it on the hosted login', async () => {
    const res = await connect(world, { clientId: 'aerie', clientSecret: 'idp-secret', issuer: idp.issuer });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      provider: 'oidc', issuer: idp.issuer, clientId: 'aerie', clientSecretSet: true,
      redirectUri: `${aerie.url}/login/{applicationKey}/social/oidc/callback`, createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const [row] = await aerie.sql('select authorization_endpoint, client_secret_ciphertext from oidc.social_connections');
    expect(row.authorization_endpoint).toBe(`${idp.issuer}/auth`);
    expect(row.client_secret_ciphertext).not.toContain('idp-secret');
    const listed = await aerie.request('GET', `/api/org/acme/app-groups/${world.groupId}/social-connections`, { token: world.org.owner });
    expect(listed.body.connections).toEqual([res.body]);
    expect(JSON.stringify(listed.body)).not.toContain('idp-secret');
    // Saved again without a secret: the stored one stays.
    expect((await connect(world, { clientId: 'aerie', issuer: idp.issuer })).body.clientSecretSet).toBe(true);
    expect((await auditEvents(aerie, world.org, 'org.app_group.social_connection_set')).map((e) => e.businessData)).toEqual([
      expect.objectContaining({ appGroupId: world.groupId, provider: 'oidc', issuer: idp.issuer, clientSecretSet: true }),
      expect.objectContaining({ appGroupId: world.groupId, provider: 'oidc', clientSecretSet: true }),
    ]);
    const methods = await aerie.request('GET', `/api/public/apps/${world.clientId}/login-methods`);
    expect(methods.body.methods.social).toEqual(['oidc']);
  });

  it('signs in the end user with the verified email: the relying party gets tokens whose sub is that end user; the flow is single use', async () => {
    idp.user = { email: world.email, email_verified: true, name: 'Ada' };
    const { jar, callback, request } = await toCallback();
    const done = await jar.fetch(callback.href);
    // The same callback again: the flow was used.
    const replay = await jar.fetch(callback.href);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: 'SOCIAL_SIGN_IN_FAILED', reason: 'flow_used' });
    const back = await backToClient(jar, done);
    const tokens = await oidc.authorizationCodeGrant(rp, back, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens.claims()).toMatchObject({ sub: world.endUserId, email: world.email, amr: ['fed'] });
    const signedIn = await auditEvents(aerie, world.org, 'org.end_user.signed_in');
    expect(signedIn.at(-1)!.businessData).toEqual({
      endUserId: world.endUserId, appGroupId: world.groupId, clientKey: world.clientId, method: 'social', provider: 'oidc', email: world.email, ip: '127.0.0.1',
    });
    // A spent flow is no attempt: nothing is recorded for the replay.
    expect(await auditEvents(aerie, world.org, 'org.end_user.sign_in_failed')).toEqual([]);
  });

  it('creates a new end user (source OpenID, access to the group) for a verified email the organization does not know', async () => {
    idp.user = { email: 'Newcomer@Example.test', email_verified: true, name: 'New Comer' };
    const { jar, callback, request } = await toCallback();
    const back = await backToClient(jar, await jar.fetch(callback.href));
    const tokens = await oidc.authorizationCodeGrant(rp, back, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const [user] = await aerie.sql('select id, source, email from endusers.end_users where org_id = ? and email_normalized = ?', [world.org.id, 'newcomer@example.test']);
    expect(user).toMatchObject({ source: 'OpenID' });
    expect(tokens.claims()!.sub).toBe(user.id);
    // A signup: the person's own first sign-in made the end user.
    expect((await auditEvents(aerie, world.org, 'org.end_user.created')).at(-1)!.businessData).toMatchObject({ endUserId: user.id, source: 'OpenID', via: 'self_signup' });
  });

  it('an address only the social connection vouched for speaks for no Aerie account: the owner gate refuses the token (401 email_not_proven)', async () => {
    // boss@example.com has an Aerie account that owns an organization; the tenant's provider asserts that address.
    await createOrg(aerie, await aerie.signIn('boss@example.com'), 'bossco');
    idp.user = { email: 'boss@example.com', email_verified: true };
    const { jar, callback, request } = await toCallback();
    const back = await backToClient(jar, await jar.fetch(callback.href));
    const tokens = await oidc.authorizationCodeGrant(rp, back, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const [user] = await aerie.sql('select email_verified_at, email_proven_at from endusers.end_users where org_id = ? and email_normalized = ?', [world.org.id, 'boss@example.com']);
    expect(user.email_verified_at).not.toBeNull();
    expect(user.email_proven_at).toBeNull();
    const key = (await createKey(aerie, world.org)).value;
    for (const path of ['/api/public/v1/orgs/owner-status', '/api/public/v1/orgs/app-groups/create']) {
      const res = await aerie.request('POST', path, {
        headers: { 'x-api-key': key, authorization: `Bearer ${tokens.access_token}` }, body: path.endsWith('create') ? { orgId: world.org.id, name: 'Taken' } : {},
      });
      expect(res.status, path).toBe(401);
      expect(res.body, path).toMatchObject({ error: 'UNAUTHORIZED', reason: 'email_not_proven' });
    }
    expect(await aerie.sql("select 1 from apps.app_groups where name = 'Taken'")).toEqual([]);
  });

  it.each([
    ['an unverified email', () => { idp.user = { email: 'unverified@example.test', email_verified: false }; }, 'email_unverified',
      { reason: 'email_unverified', email: 'unverified@example.test' }],
    ['an ID token whose claims were changed under the original signature', () => {
      idp.user = { email: 'mallory@example.test', email_verified: true };
      idp.forgeIdToken = { claims: (c) => ({ ...c, email: world.email }), signature: 'original' };
    }, 'id_token_signature_invalid', { reason: 'provider_error' }],
  ])('refuses %s (401 SOCIAL_SIGN_IN_FAILED), signs nobody in and audits the attempt', async (_label, arrange, reason, failure) => {
    arrange();
    try {
      const before = (await auditEvents(aerie, world.org, 'org.end_user.signed_in')).length;
      const failedBefore = (await auditEvents(aerie, world.org, 'org.end_user.sign_in_failed')).length;
      const { jar, callback } = await toCallback();
      const res = await jar.fetch(callback.href);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'SOCIAL_SIGN_IN_FAILED', message: 'The sign-in with the social provider failed. Start again.', reason });
      expect((await auditEvents(aerie, world.org, 'org.end_user.signed_in')).length).toBe(before);
      expect((await auditEvents(aerie, world.org, 'org.end_user.sign_in_failed')).slice(failedBefore).map((e) => e.businessData)).toEqual([
        { appGroupId: world.groupId, clientKey: world.clientId, method: 'social', provider: 'oidc', ip: '127.0.0.1', ...failure },
      ]);
    } finally {
      idp.forgeIdToken = undefined;
    }
  });

  it('refuses a forged state, and a callback from a browser without the sign-in', async () => {
    idp.user = { email: world.email, email_verified: true };
    const { jar, callback } = await toCallback();
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state');
    const res = await jar.fetch(forged.href);
    expect([res.status, (await res.json()).reason]).toEqual([401, 'flow_unknown']);
    const stranger = await new CookieJar().fetch(callback.href);
    expect([stranger.status, (await stranger.json()).error]).toEqual([404, 'SIGN_IN_NOT_FOUND']);
  });

  it.each([
    ['github (no OpenID discovery)', 'github', { clientId: 'x' }, 400, 'SOCIAL_PROVIDER_UNSUPPORTED'],
    ['oidc without an issuer', 'oidc', { clientId: 'x' }, 400, 'VALIDATION_FAILED'],
    ['an issuer with no discovery document', 'microsoft', { clientId: 'x', issuer: 'https://127.0.0.1:9/tenant' }, 400, 'SOCIAL_DISCOVERY_FAILED'],
    ['an http issuer', 'oidc', { clientId: 'x', issuer: 'http://example.test' }, 400, 'VALIDATION_FAILED'],
    ['an unknown provider', 'myspace', { clientId: 'x' }, 400, 'VALIDATION_FAILED'],
  ])('refuses %s and stores nothing', async (_label, provider, body, status, code) => {
    const before = await aerie.sql('select count(*)::int as n from oidc.social_connections');
    const res = await connect(world, body, provider);
    expect([res.status, res.body.error]).toEqual([status, code]);
    expect(await aerie.sql('select count(*)::int as n from oidc.social_connections')).toEqual(before);
  });

  it('runs inside an SDK sign-in: the provider URL as JSON, the callback ends at the redirect URI with a code the app exchanges', async () => {
    idp.user = { email: world.email, email_verified: true };
    const verifier = oidc.randomPKCECodeVerifier();
    const started = await aerie.request('POST', `/api/public/apps/${spaKey}/auth/start`, {
      body: { redirectUri: REDIRECT_URI, scope: 'openid email', codeChallenge: await oidc.calculatePKCECodeChallenge(verifier), codeChallengeMethod: 'S256' },
    });
    expect(started.status).toBe(201);
    const go = await aerie.request('POST', `/api/public/apps/${spaKey}/auth/social/oidc`, { body: { signInId: started.body.signInId } });
    expect(go.status, JSON.stringify(go.body)).toBe(200);
    expect(new URL(go.body.url).origin).toBe(idp.issuer);
    const callback = await idp.browse(go.body.url);
    // No cookie: the flow is the SDK sign-in's, bound by state; PKCE binds the code to the application.
    const done = await fetch(callback, { redirect: 'manual' });
    expect(done.status, await done.clone().text()).toBe(303);
    const back = new URL(done.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    const spaRp = await relyingParty({ issuer: world.issuer, clientId: spaKey, clientSecret: undefined as unknown as string });
    const tokens = await oidc.authorizationCodeGrant(spaRp, back, { pkceCodeVerifier: verifier });
    expect(tokens.claims()).toMatchObject({ sub: world.endUserId, amr: ['fed'] });
    // The sign-in is finished: the same callback and the same handle are spent.
    expect((await fetch(callback, { redirect: 'manual' })).status).toBe(401);
    expect((await aerie.request('POST', `/api/public/apps/${spaKey}/auth/social/oidc`, { body: { signInId: started.body.signInId } })).body.error).toBe('SIGN_IN_NOT_FOUND');
  });

  it("keeps organizations apart: another organization's group is 404 on every route, and removing is audited", async () => {
    const foreign = `/api/org/acme/app-groups/${other.groupId}/social-connections`;
    expect((await aerie.request('GET', foreign, { token: world.org.owner })).status).toBe(404);
    expect((await aerie.request('PUT', `${foreign}/oidc`, { token: world.org.owner, body: { clientId: 'x', issuer: idp.issuer } })).status).toBe(404);
    expect((await aerie.request('GET', `/api/org/acme/app-groups/${world.groupId}/social-connections`, { token: other.org.owner })).status).toBe(404);
    expect((await aerie.request('DELETE', connections(world), { token: other.org.owner })).status).toBe(404);
    expect((await aerie.request('DELETE', connections(world), { token: world.org.owner })).status).toBe(204);
    expect((await aerie.request('DELETE', connections(world), { token: world.org.owner })).status).toBe(404);
    expect((await aerie.request('GET', `/api/public/apps/${world.clientId}/login-methods`)).body.methods.social).toEqual([]);
    expect((await auditEvents(aerie, world.org, 'org.app_group.social_connection_removed')).map((e) => e.businessData)).toEqual([
      expect.objectContaining({ appGroupId: world.groupId, provider: 'oidc' }),
    ]);
  });
});

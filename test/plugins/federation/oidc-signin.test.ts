import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { hasOpenssl } from '../../helpers/tls-receiver.ts';
import { LocalOidcProvider, type IdTokenForgery } from '../../helpers/local-oidc-provider.ts';

const DASHBOARD = 'https://dashboard.example/home';

describe.skipIf(!hasOpenssl)('federation: OpenID Connect sign-in (/idp/{slug}/login, /idp/{slug}/callback) against a local oidc-provider', () => {
  let aerie: TestAerie;
  let idp: LocalOidcProvider;
  let acme: TestOrg;
  let globex: TestOrg;

  /** GET on Aerie without following redirects, with a Cookie header. */
  const get = (path: string, cookie?: string) => fetch(aerie.url + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const flowCookie = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith('aerie_idp_flow='))!.split(';')[0]!;
  const jsonOf = async (res: Response) => JSON.parse(await res.text());

  /** `/login` at `slug`, then the IdP: answers the flow cookie and the callback path with its query. */
  async function toCallback(slug: string, editAuthorize?: (u: URL) => void): Promise<{ cookie: string; callback: string }> {
    const login = await get(`/idp/${slug}/login`);
    expect(login.status).toBe(302);
    const authorize = new URL(login.headers.get('location')!);
    editAuthorize?.(authorize);
    const back = await idp.browse(authorize.href);
    expect(back.origin).toBe(aerie.url);
    return { cookie: flowCookie(login), callback: back.pathname + back.search };
  }

  async function signInAs(user: { email: string; email_verified: boolean }, slug = 'acme'): Promise<Response> {
    idp.user = user;
    const { cookie, callback } = await toCallback(slug);
    return get(callback, cookie);
  }

  async function refused(res: Response, reason: string): Promise<void> {
    expect(res.status).toBe(401);
    expect(await jsonOf(res)).toEqual({ error: 'IDP_SIGNIN_FAILED', message: expect.any(String), reason });
    expect(res.headers.getSetCookie().some((c) => c.startsWith('aerie_session='))).toBe(false);
  }

  const configure = async (org: TestOrg, extra: Record<string, unknown> = {}) => {
    const res = await aerie.request('POST', `/api/org/${org.slug}/idp-connections`, {
      token: org.owner, body: { provider: 'custom-oidc', oidc_discovery_url: `${idp.issuer}/.well-known/openid-configuration`, oidc_client_id: 'aerie', oidc_client_secret: 'idp-secret', ...extra },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const sessions = (email: string) => aerie.sql('select s.csrf_token_hash from accounts.sessions s join accounts.accounts a on a.id = s.account_id where a.email = ?', [email]);

  beforeAll(async () => {
    const tls = LocalOidcProvider.certificate();
    aerie = await TestAerie.start({ exactBaseUrl: true, overrides: { 'egress.allowLoopback': true, 'egress.caFiles': [tls.cert], dashboardUrl: DASHBOARD } });
    idp = await LocalOidcProvider.start(tls, [`${aerie.url}/idp/acme/callback`, `${aerie.url}/idp/globex/callback`]);
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    await aerie.signIn('outsider@acme.test');
    // acme's own members: accounts its IdP made (JIT), then JIT is switched off.
    await configure(acme, { allow_jit: true });
    for (const email of ['member@acme.test', 'suspended@acme.test']) expect((await signInAs({ email, email_verified: true })).status).toBe(303);
    await configure(acme, { oidc_client_secret: '' });
    await configure(globex);
  });
  afterAll(async () => {
    await aerie?.close();
    await idp?.close();
  });

  it('login redirects to the IdP with PKCE (S256), state and nonce, and sets a short-lived HttpOnly flow cookie', async () => {
    const login = await get('/idp/acme/login');
    expect(login.status).toBe(302);
    const url = new URL(login.headers.get('location')!);
    expect(url.origin + url.pathname).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: 'aerie', response_type: 'code', redirect_uri: `${aerie.url}/idp/acme/callback`, scope: 'openid email profile', code_challenge_method: 'S256',
      state: expect.any(String), nonce: expect.any(String), code_challenge: expect.any(String),
    });
    expect(login.headers.get('set-cookie')).toMatch(/^aerie_idp_flow=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
    const [row] = await aerie.sql('select org_id, protocol, state, code_verifier, consumed_at from federation.signin_flows order by created_at desc limit 1');
    expect(row).toMatchObject({ org_id: acme.id, protocol: 'oidc', state: url.searchParams.get('state'), consumed_at: null });
    expect(JSON.stringify(row)).not.toContain(flowCookie(login).split('=')[1]);
  });

  it('signs an active member in: 303 to the dashboard with an organization session and its CSRF token; the flow is single use; audited', async () => {
    idp.user = { email: 'Member@Acme.test', email_verified: true, name: 'Mem Ber' } as never;
    const { cookie, callback } = await toCallback('acme');
    const res = await get(callback, cookie);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${DASHBOARD}#csrf_token=[A-Za-z0-9_-]{43}$`));
    expect(res.headers.get('cache-control')).toBe('no-store');
    const session = res.headers.getSetCookie().find((c) => c.startsWith('aerie_session='))!;
    expect(session).toMatch(/^aerie_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const me = await get('/api/v1/users/me', session.split(';')[0]);
    expect(me.status).toBe(200);
    const { account } = await jsonOf(me);
    expect(account.email).toBe('member@acme.test');
    expect((await sessions('member@acme.test')).some((s) => s.csrf_token_hash !== null)).toBe(true);
    const event = (await auditEvents(aerie, acme, 'org.idp_signin.succeeded')).at(-1);
    expect(event!.businessData).toMatchObject({ protocol: 'oidc', accountId: account.id, joined: false, membershipId: expect.any(String), via: 'directory' });
    expect(JSON.stringify(event)).not.toMatch(/idp-secret|code=/);
    // The same callback again (a replayed code and state): the flow is used.
    await refused(await get(callback, cookie), 'flow_used');
  });

  it('refuses a callback whose state differs from the flow, and a callback without the flow cookie', async () => {
    idp.user = { email: 'member@acme.test', email_verified: true };
    const { cookie, callback } = await toCallback('acme');
    const forged = callback.replace(/state=[^&]+/, 'state=forged-state');
    await refused(await get(forged, cookie), 'state_mismatch');
    await refused(await get(callback), 'flow_missing');
    await refused(await get(callback, cookie), 'flow_used');
    const failed = await auditEvents(aerie, acme, 'org.idp_signin.failed');
    expect(failed.map((e) => e.businessData.reason)).toEqual(expect.arrayContaining(['state_mismatch', 'flow_missing', 'flow_used']));
  });

  it('refuses an ID token whose nonce is not the flow’s', async () => {
    idp.user = { email: 'member@acme.test', email_verified: true };
    const { cookie, callback } = await toCallback('acme', (u) => u.searchParams.set('nonce', 'another-nonce'));
    await refused(await get(callback, cookie), 'nonce_mismatch');
  });

  it('refuses an ID token from another issuer than the connection’s', async () => {
    idp.user = { email: 'member@acme.test', email_verified: true };
    await aerie.sql(`update federation.connections set config = jsonb_set(config, '{oidc,issuer}', '"https://issuer.example"') where org_id = ? and is_active`, [acme.id]);
    try {
      const { cookie, callback } = await toCallback('acme');
      await refused(await get(callback, cookie), 'iss_mismatch');
    } finally {
      await aerie.sql(`update federation.connections set config = jsonb_set(config, '{oidc,issuer}', to_jsonb(?::text)) where org_id = ? and is_active`, [idp.issuer, acme.id]);
    }
  });

  describe('an ID token forged at the token endpoint signs nobody in', () => {
    const now = () => Math.floor(Date.now() / 1000);
    /** Signs member@acme.test in through the IdP while it forges its ID token; answers the callback's response. */
    async function withForgery(forgery: IdTokenForgery): Promise<Response> {
      idp.forgeIdToken = forgery;
      try {
        return await signInAs({ email: 'member@acme.test', email_verified: true });
      } finally {
        idp.forgeIdToken = undefined;
      }
    }

    it('(the forgery is faithful: the same claims signed again by the IdP sign the member in)', async () => {
      expect((await withForgery({ signature: 'resigned', claims: (c) => c })).status).toBe(303);
    });

    it.each<[string, IdTokenForgery, string]>([
      ['claims changed after signing (the email swapped for the Owner’s): tampered signature', { signature: 'original', claims: (c) => ({ ...c, email: 'owner@acme.test' }) }, 'id_token_signature_invalid'],
      ['signed by the IdP for another client (wrong aud)', { signature: 'resigned', claims: (c) => ({ ...c, aud: 'another-client' }) }, 'aud_mismatch'],
      ['signed by the IdP, expired an hour ago (exp in the past)', { signature: 'resigned', claims: (c) => ({ ...c, iat: now() - 7200, exp: now() - 3600 }) }, 'id_token_expired'],
    ])('refuses %s', async (_, forgery, reason) => {
      const state = async () => ({
        owner: (await sessions('owner@acme.test')).length, member: (await sessions('member@acme.test')).length,
        succeeded: (await auditEvents(aerie, acme, 'org.idp_signin.succeeded')).length,
      });
      const before = await state();
      await refused(await withForgery(forgery), reason);
      expect(await state()).toEqual(before);
      const failed = await auditEvents(aerie, acme, 'org.idp_signin.failed');
      expect(failed.at(-1)!.businessData).toMatchObject({ protocol: 'oidc', reason });
    });
  });

  it('refuses an email the IdP does not vouch for (email_verified false)', async () => {
    const before = (await sessions('member@acme.test')).length;
    await refused(await signInAs({ email: 'member@acme.test', email_verified: false }), 'email_unverified');
    expect((await sessions('member@acme.test')).length).toBe(before);
  });

  it('takes Entra ID’s xms_edov in place of a missing email_verified; neither present is unverified', async () => {
    expect((await signInAs({ email: 'member@acme.test', xms_edov: true } as never)).status).toBe(303);
    await refused(await signInAs({ email: 'member@acme.test' } as never), 'email_unverified');
    await refused(await signInAs({ email: 'member@acme.test', email_verified: false, xms_edov: true } as never), 'email_unverified');
  });

  it('refuses an Aerie account’s address (account_exists: never joined by an assertion), and a stranger while just-in-time membership is off; nothing is created', async () => {
    await refused(await signInAs({ email: 'outsider@acme.test', email_verified: true }), 'account_exists');
    await refused(await signInAs({ email: 'stranger@acme.test', email_verified: true }), 'not_a_member');
    expect(await aerie.sql('select 1 from accounts.accounts where email = ?', ['stranger@acme.test'])).toEqual([]);
    expect(await aerie.sql('select 1 from orgs.memberships m join accounts.accounts a on a.id = m.account_id where a.email = ? and m.org_id = ?', ['outsider@acme.test', acme.id])).toEqual([]);
  });

  it('refuses a suspended member', async () => {
    await aerie.sql(`update orgs.memberships set status = 'suspended' where org_id = ? and account_id = (select id from accounts.accounts where email = ?)`, [acme.id, 'suspended@acme.test']);
    await refused(await signInAs({ email: 'suspended@acme.test', email_verified: true }), 'membership_inactive');
  });

  it('refuses org A’s flow at org B’s callback (cross-organization), and signs nobody in at B', async () => {
    idp.user = { email: 'owner@globex.test', email_verified: true };
    const { cookie, callback } = await toCallback('acme');
    await refused(await get(callback.replace('/idp/acme/', '/idp/globex/'), cookie), 'flow_other_organization');
    const [event] = await auditEvents(aerie, globex, 'org.idp_signin.failed');
    expect(event!.businessData).toMatchObject({ reason: 'flow_other_organization' });
    expect(await auditEvents(aerie, globex, 'org.idp_signin.succeeded')).toEqual([]);
  });

  it('with allow_jit, a person with no membership joins as Member at sign-in (account created when new)', async () => {
    await configure(acme, { allow_jit: true, oidc_client_secret: '' });
    const res = await signInAs({ email: 'newcomer@acme.test', email_verified: true });
    expect(res.status, await res.clone().text()).toBe(303);
    const [m] = await aerie.sql(`select m.role, m.status, a.email_verified_at, a.federated_org_id from orgs.memberships m join accounts.accounts a on a.id = m.account_id where a.email = ? and m.org_id = ?`, ['newcomer@acme.test', acme.id]);
    // acme's own account: its IdP vouched for the address, Aerie did not verify it.
    expect(m).toEqual({ role: 'Member', status: 'active', email_verified_at: null, federated_org_id: acme.id });
    const events = await auditEvents(aerie, acme, 'org.idp_signin.succeeded');
    expect(events.at(-1)!.businessData).toMatchObject({ joined: true, via: 'jit' });
    // A suspended member is not revived by just-in-time membership.
    await refused(await signInAs({ email: 'suspended@acme.test', email_verified: true }), 'membership_inactive');
  });

  it('after deactivation, login and callback answer 404 idp_not_configured; an unknown organization too', async () => {
    const { cookie, callback } = await toCallback('globex');
    expect((await aerie.request('POST', '/api/org/globex/idp-connections/deactivate', { token: globex.owner })).status).toBe(204);
    for (const res of [await get('/idp/globex/login'), await get(callback, cookie), await get('/idp/nowhere/login')]) {
      expect(res.status).toBe(404);
      expect(await jsonOf(res)).toEqual({ error: 'idp_not_configured', message: expect.any(String) });
    }
  });

  it('cuts off a flood of sign-in starts from one address: 429 RATE_LIMITED with Retry-After (runs last: it spends this address’s window)', async () => {
    const before = Number((await aerie.sql('select count(*)::int as n from federation.signin_flows'))[0].n);
    let res: Response | undefined;
    for (let i = 0; i < 61; i++) {
      res = await get('/idp/acme/login');
      if (res.status === 429) break;
      expect(res.status).toBe(302);
    }
    expect(res!.status).toBe(429);
    expect((await jsonOf(res!)).error).toBe('RATE_LIMITED');
    expect(Number(res!.headers.get('retry-after'))).toBeGreaterThan(0);
    const after = Number((await aerie.sql('select count(*)::int as n from federation.signin_flows'))[0].n);
    expect(after - before).toBeLessThanOrEqual(60);
  });
});

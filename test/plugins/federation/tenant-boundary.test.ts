import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { hasOpenssl } from '../../helpers/tls-receiver.ts';
import { LocalOidcProvider } from '../../helpers/local-oidc-provider.ts';
import { SamlIdp } from '../../helpers/saml-idp.ts';
import { invitationMails, invitationToken } from '../../helpers/org-members.ts';
import {
  configureOidc, cookieSignIn, oidcSignIn, scimCreate, scimToken, sessionOf, setCookie, withCookie, type CookieSession,
} from './federation-helpers.ts';

const DASHBOARD = 'https://dashboard.example/home';

/**
 * A tenant's identity provider vouches only inside its tenant (docs/api/federation.md): the takeovers
 * an Owner of one organization could mount with its own IdP or SCIM token, each refused, and what an
 * organization session reaches.
 */
describe.skipIf(!hasOpenssl)('federation: a tenant’s IdP and SCIM token never reach another tenant or an Aerie account', () => {
  let aerie: TestAerie;
  let idp: LocalOidcProvider;
  let saml: SamlIdp;
  let alpha: TestOrg;
  let omega: TestOrg;
  let beta: TestOrg;
  let admin: string;
  /** An organization session of alpha, opened through alpha's IdP (JIT). */
  let alphaSession: CookieSession;

  const sessionsOf = async (email: string) => Number((await aerie.sql(
    'select count(*)::int as n from accounts.sessions s join accounts.accounts a on a.id = s.account_id where a.email = ?', [email]))[0].n);

  async function samlLogin(slug: string, email: string, accept?: string): Promise<Response> {
    const login = await fetch(`${aerie.url}/idp/${slug}/login`, { redirect: 'manual' });
    const [row] = await aerie.sql('select saml_request_id from federation.signin_flows order by created_at desc limit 1');
    const xml = saml.signedResponse({ email, inResponseTo: row.saml_request_id, audience: `${aerie.url}/idp/${slug}/saml`, recipient: `${aerie.url}/idp/${slug}/saml/acs` });
    return fetch(`${aerie.url}/idp/${slug}/saml/acs`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: setCookie(login, 'aerie_idp_flow')!, ...(accept ? { accept } : {}) },
      body: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64') }).toString(),
    });
  }

  async function refused(res: Response, reason: string): Promise<void> {
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'IDP_SIGNIN_FAILED', message: expect.any(String), reason });
    expect(setCookie(res, 'aerie_session')).toBeUndefined();
  }

  beforeAll(async () => {
    const tls = LocalOidcProvider.certificate();
    saml = new SamlIdp();
    aerie = await TestAerie.start({
      exactBaseUrl: true, env: { AERIE_PLATFORM_ADMINS: 'admin@example.test' },
      overrides: { 'egress.allowLoopback': true, 'egress.caFiles': [tls.cert], dashboardUrl: DASHBOARD },
    });
    idp = await LocalOidcProvider.start(tls, [`${aerie.url}/idp/omega/callback`]);
    // The attacker owns alpha (SAML) and omega (OpenID); the victims own beta or run the platform.
    alpha = await signInWithOrg(aerie, 'owner-a@example.test', 'alpha');
    omega = { ...alpha, id: '', slug: 'omega' };
    omega.id = (await aerie.request('POST', '/api/org/create', { token: alpha.owner, body: { name: 'Omega', slug: 'omega' } })).body.id;
    beta = await signInWithOrg(aerie, 'owner-b@example.test', 'beta');
    admin = await aerie.signIn('admin@example.test');
    const samlRes = await aerie.request('POST', '/api/org/alpha/idp-connections', {
      token: alpha.owner, body: { provider: 'custom-saml', allow_jit: true, saml_sso_url: 'https://idp.example/sso', saml_entity_id: saml.entityId, saml_certificate: saml.certificate },
    });
    expect(samlRes.status).toBe(201);
    await configureOidc(aerie, idp, 'omega', alpha.owner, { allow_jit: true });
    alphaSession = sessionOf(await samlLogin('alpha', 'employee@alpha-corp.test'));
  });
  afterAll(async () => {
    await aerie?.close();
    await idp?.close();
  });

  it('SAML: alpha’s signed assertion for beta’s Owner signs nobody in; the refusal is audited and nothing is created', async () => {
    const before = await sessionsOf('owner-b@example.test');
    await refused(await samlLogin('alpha', 'owner-b@example.test'), 'account_exists');
    expect(await sessionsOf('owner-b@example.test')).toBe(before);
    expect(await aerie.sql('select 1 from orgs.memberships m join accounts.accounts a on a.id = m.account_id where a.email = ? and m.org_id = ?', ['owner-b@example.test', alpha.id])).toEqual([]);
    expect(await aerie.sql('select 1 from accounts.accounts where email = ? and federated_org_id is not null', ['owner-b@example.test'])).toEqual([]);
    const [event] = (await auditEvents(aerie, alpha, 'org.federation.sign_in_refused')).slice(-1);
    expect(event!.businessData).toMatchObject({ protocol: 'saml', reason: 'account_exists', link: false });
    expect(await auditEvents(aerie, beta, 'org.idp_signin.succeeded')).toEqual([]);
  });

  it('a browser in the flow gets a page saying what to do (strict CSP, no script), not JSON', async () => {
    const res = await samlLogin('alpha', 'owner-b@example.test', 'text/html,application/xhtml+xml');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('data-reason="account_exists"');
    expect(html).toMatch(/link your identity provider/i);
    expect(html).not.toMatch(/<script/i);
    expect(setCookie(res, 'aerie_session')).toBeUndefined();
  });

  it('OpenID: omega’s ID token for beta’s Owner, and for the platform administrator, signs nobody in', async () => {
    await refused(await oidcSignIn(aerie, idp, 'omega', { email: 'owner-b@example.test', email_verified: true }), 'account_exists');
    await refused(await oidcSignIn(aerie, idp, 'omega', { email: 'admin@example.test', email_verified: true }), 'account_exists');
    expect((await auditEvents(aerie, omega, 'org.federation.sign_in_refused')).map((e) => e.businessData.reason)).toEqual(['account_exists', 'account_exists']);
  });

  it('SCIM: alpha’s token provisioning the platform administrator invites them; no membership acts and the IdP still cannot sign them in', async () => {
    const token = await scimToken(aerie, 'alpha', alpha.owner);
    const res = await scimCreate(aerie, 'alpha', token, 'admin@example.test');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ userName: 'admin@example.test', active: false });
    const [m] = await aerie.sql(`select m.status from orgs.memberships m join accounts.accounts a on a.id = m.account_id
      where a.email = ? and a.federated_org_id is null and m.org_id = ?`, ['admin@example.test', alpha.id]);
    expect(m).toEqual({ status: 'invited' });
    expect(invitationMails(aerie, 'admin@example.test')).toHaveLength(1);
    const [provisioned] = (await auditEvents(aerie, alpha, 'org.member.provisioned')).slice(-1);
    expect(provisioned!.businessData).toMatchObject({ invited: true, active: false });
    await refused(await samlLogin('alpha', 'admin@example.test'), 'account_exists');
    // The administrator's own account is untouched: alpha is not among its organizations.
    const me = await aerie.request('GET', '/api/v1/users/me?_t=1', { token: admin });
    expect(me.body.organizations.map((o: { slug: string }) => o.slug)).not.toContain('alpha');
    expect(me.body.account.platformAdmin).toBe(true);
  });

  it('JIT makes alpha’s own account (federated, not verified for Aerie) and an organization session that reaches alpha alone', async () => {
    const [account] = await aerie.sql('select email_verified_at, federated_org_id from accounts.accounts where email = ?', ['employee@alpha-corp.test']);
    expect(account).toEqual({ email_verified_at: null, federated_org_id: alpha.id });
    const me = await withCookie(aerie, alphaSession, 'GET', '/api/v1/users/me');
    expect(me.status).toBe(200);
    const body = await me.json();
    expect(body.organizations.map((o: { slug: string }) => o.slug)).toEqual(['alpha']);
    expect(body.organizationSession).toEqual({ orgId: alpha.id });
    expect(body.account).toMatchObject({ emailVerified: false, platformAdmin: false, federatedOrgId: alpha.id });
    const own = await withCookie(aerie, alphaSession, 'GET', '/api/org/alpha');
    expect(own.status).toBe(200);
    expect((await own.json()).slug).toBe('alpha');
    expect((await withCookie(aerie, alphaSession, 'GET', '/api/org/beta')).status).toBe(404);
    // A scope the member lacks is refused as for any member (403 with `required`): the session reached alpha.
    expect(await (await withCookie(aerie, alphaSession, 'GET', '/api/org/alpha/members')).json()).toMatchObject({ error: 'PERMISSION_DENIED', required: expect.any(String) });
    expect((await withCookie(aerie, alphaSession, 'GET', '/api/org/beta/members')).status).toBe(404);
  });

  it('an organization session cannot sign in with an Aerie account at another organization’s application, nor manage passkeys, nor accept invitations', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/aerie-account/apps/any-app'], ['POST', '/login/any-app/aerie/connect'], ['POST', '/api/passkey/add/options'],
      ['GET', '/api/passkey/list'], ['POST', '/api/org/invitation/accept'], ['POST', '/api/org/create'], ['PUT', '/api/v1/admin/orgs/beta/plan'],
    ] as const) {
      const res = await withCookie(aerie, alphaSession, method, path, method === 'GET' ? undefined : {});
      expect([401, 403], `${method} ${path}`).toContain(res.status);
      if (res.status === 403) expect((await res.json()).reason ?? 'platform', `${method} ${path}`).toMatch(/organization_session|platform/);
    }
  });

  it('pre-hijacking: the real owner of a JIT address who registers later gets an account of their own; the tenant’s account keeps nothing of theirs', async () => {
    const [federated] = await aerie.sql('select id from accounts.accounts where email = ? and federated_org_id = ?', ['employee@alpha-corp.test', alpha.id]);
    const token = await aerie.signIn('employee@alpha-corp.test');
    const me = await aerie.request('GET', '/api/v1/users/me?_t=1', { token });
    expect(me.status).toBe(200);
    expect(me.body.account.id).not.toBe(federated.id);
    expect(me.body.account).toMatchObject({ emailVerified: true, platformAdmin: false });
    expect(me.body.account.federatedOrgId).toBeUndefined();
    expect(me.body.organizations).toEqual([]);
    expect(me.body.credentialIds).toEqual([]);
    // And the tenant's IdP still reaches only its own account, never the registered one.
    const again = sessionOf(await samlLogin('alpha', 'employee@alpha-corp.test'));
    const seen = await (await withCookie(aerie, again, 'GET', '/api/v1/users/me')).json();
    expect(seen.account.id).toBe(federated.id);
  });

  it('a cookie session’s value is not a bearer token (401), an organization session’s nor an Aerie page’s', async () => {
    const page = await cookieSignIn(aerie, 'owner-b@example.test');
    for (const session of [alphaSession, page]) {
      const res = await aerie.request('GET', '/api/v1/users/me', { token: session.token });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('UNAUTHORIZED');
      expect((await aerie.request('GET', '/api/org/beta/members', { token: session.token })).status).toBe(401);
    }
    // A bearer session's token is no cookie either.
    const bearer = await fetch(`${aerie.url}/api/v1/users/me`, { headers: { cookie: `aerie_session=${beta.owner}` } });
    expect(bearer.status).toBe(401);
  });

  it('every /api route outside alpha refuses alpha’s organization session: 404 for another organization’s routes, 403 or 401 elsewhere', async () => {
    const doc = await (await fetch(`${aerie.url}/api/openapi.json`)).json() as { paths: Record<string, Record<string, any>> };
    const outcomes: Record<string, number> = {};
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (!op.security || op.security.length === 0 || op.security.some((s: object) => Object.keys(s).length === 0)) continue; // public
        const orgRoute = path.includes('{slug}') && op['x-aerie-org-sessions'];
        if (op['x-aerie-org-sessions'] && !orgRoute) continue; // /users/me and logout: this organization's view
        const url = path.replace('{slug}', 'beta').replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
        const res = await withCookie(aerie, alphaSession, method.toUpperCase(), url, method === 'get' ? undefined : {});
        const cookieAccepted = op.security.some((s: object) => 'cookieSession' in s);
        const expected = !cookieAccepted ? [401] : orgRoute ? [404] : [403];
        expect(expected, `${method.toUpperCase()} ${path} answered ${res.status}`).toContain(res.status);
        if (res.status === 403) expect((await res.json()).reason, `${method.toUpperCase()} ${path}`).toBe('organization_session');
        outcomes[res.status] = (outcomes[res.status] ?? 0) + 1;
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect(outcomes[404]).toBeGreaterThan(100);
    expect(outcomes[403]).toBeGreaterThan(10);
  });

  it('the platform administrator is never signed in through a tenant’s IdP, even as an invited member who accepted', async () => {
    const session = await cookieSignIn(aerie, 'admin@example.test');
    const accepted = await aerie.request('POST', '/api/org/invitation/accept', {
      token: admin, body: { Token: invitationToken(aerie, 'admin@example.test') },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.Member).toMatchObject({ Status: 'active', Role: 'Member' });
    const link = await withCookie(aerie, session, 'POST', '/api/v1/users/me/idp-links', { orgSlug: 'alpha' });
    expect(link.status).toBe(403);
    expect(await link.json()).toMatchObject({ error: 'PERMISSION_DENIED', reason: 'platform_administrator' });
    await refused(await samlLogin('alpha', 'admin@example.test'), 'account_exists');
  });
});

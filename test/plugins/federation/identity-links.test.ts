import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { hasOpenssl } from '../../helpers/tls-receiver.ts';
import { LocalOidcProvider } from '../../helpers/local-oidc-provider.ts';
import { invitationToken } from '../../helpers/org-members.ts';
import { addPasskey, authenticatorFor, signStepUp } from '../../helpers/passkey-flows.ts';
import { addMembership } from '../apps/helpers.ts';
import {
  configureOidc, cookieSignIn, oidcFinish, oidcSignIn, scimCreate, scimToken, sessionOf, setCookie, withCookie,
} from './federation-helpers.ts';

const DASHBOARD = 'https://dashboard.example/home';

/**
 * What a tenant's IdP may still do: sign its own new people in (JIT), sign in people SCIM provisioned
 * at new addresses, and sign in an existing Aerie account once its owner — invited, accepted with
 * their own account — linked the IdP identity themselves, with a passkey seal.
 */
describe.skipIf(!hasOpenssl)('federation: legitimate sign-ins through an organization’s IdP, and linking an Aerie account', () => {
  let aerie: TestAerie;
  let idp: LocalOidcProvider;
  let acme: TestOrg;
  let globex: TestOrg;
  let scim: string;

  const refusedWith = async (res: Response, reason: string) => {
    expect(res.status).toBe(401);
    expect((await res.json()).reason).toBe(reason);
  };

  beforeAll(async () => {
    const tls = LocalOidcProvider.certificate();
    aerie = await TestAerie.start({ exactBaseUrl: true, overrides: { 'egress.allowLoopback': true, 'egress.caFiles': [tls.cert], dashboardUrl: DASHBOARD } });
    idp = await LocalOidcProvider.start(tls, [`${aerie.url}/idp/acme/callback`]);
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    await configureOidc(aerie, idp, 'acme', acme.owner, { allow_jit: true });
    scim = await scimToken(aerie, 'acme', acme.owner);
  });
  afterAll(async () => {
    await aerie?.close();
    await idp?.close();
  });

  it('a new employee signs in with JIT: an organization session whose CSRF token works for writes, and only with it', async () => {
    const session = sessionOf(await oidcSignIn(aerie, idp, 'acme', { email: 'new.hire@acme.test', email_verified: true }));
    expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const org = await withCookie(aerie, session, 'GET', '/api/org/acme');
    expect(await org.json()).toMatchObject({ slug: 'acme', role: 'Member' });
    // A write without the CSRF token is refused; with it, it works (here: ending the session).
    const forged = await fetch(`${aerie.url}/api/auth/logout`, { method: 'POST', headers: { cookie: session.cookie, origin: aerie.url } });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error).toBe('CSRF_FAILED');
    expect((await withCookie(aerie, session, 'POST', '/api/auth/logout')).status).toBe(204);
    expect((await withCookie(aerie, session, 'GET', '/api/org/acme')).status).toBe(401);
  });

  it('SCIM provisions a new address: acme’s own account, active at once, which acme’s IdP then signs in (JIT off)', async () => {
    const res = await scimCreate(aerie, 'acme', scim, 'provisioned@acme.test');
    expect(res.status).toBe(201);
    expect(res.body.active).toBe(true);
    await configureOidc(aerie, idp, 'acme', acme.owner, { oidc_client_secret: '' });
    try {
      const session = sessionOf(await oidcSignIn(aerie, idp, 'acme', { email: 'provisioned@acme.test', email_verified: true }));
      const me = await (await withCookie(aerie, session, 'GET', '/api/v1/users/me')).json();
      expect(me.account).toMatchObject({ email: 'provisioned@acme.test', federatedOrgId: acme.id });
      expect((await auditEvents(aerie, acme, 'org.idp_signin.succeeded')).at(-1)!.businessData).toMatchObject({ via: 'directory', joined: false });
    } finally {
      await configureOidc(aerie, idp, 'acme', acme.owner, { allow_jit: true, oidc_client_secret: '' });
    }
  });

  it('an existing person: SCIM invites, they accept with their own account, link their IdP identity with a seal, then sign in through it into acme only', async () => {
    // Pat has an Aerie account and is also a member of globex.
    const pat = await addMembership(aerie, globex, 'pat@example.test', 'Member');
    const created = await scimCreate(aerie, 'acme', scim, 'pat@example.test');
    expect(created.body).toMatchObject({ active: false });
    // Before accepting, the IdP cannot sign Pat in.
    await refusedWith(await oidcSignIn(aerie, idp, 'acme', { email: 'pat@example.test', email_verified: true }), 'account_exists');

    const accepted = await aerie.request('POST', '/api/org/invitation/accept', { token: pat, body: { Token: invitationToken(aerie, 'pat@example.test') } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.Member).toMatchObject({ ConnectedIdId: created.body.id, Status: 'active', Roles: [] });
    const scimUser = await aerie.request('GET', `/scim/v2/acme/Users/${created.body.id}`, { token: scim });
    expect(scimUser.body.active).toBe(true);

    // Link: from Pat's own cookie session, sealed, completed in that browser at the IdP as pat@corp-idp.test.
    const auth = authenticatorFor(aerie);
    expect((await addPasskey(aerie, pat, auth)).res.status).toBe(201);
    const browser = await cookieSignIn(aerie, 'pat@example.test');
    const unsealed = await withCookie(aerie, browser, 'POST', '/api/v1/users/me/idp-links', { orgSlug: 'acme' });
    expect(unsealed.status).toBe(401);
    expect((await unsealed.json()).error).toBe('STEPUP_REQUIRED');
    const { assertion } = await signStepUp(aerie, pat, auth, { purpose: 'federation.identity.link', subject: 'acme' });
    const started = await withCookie(aerie, browser, 'POST', '/api/v1/users/me/idp-links', { orgSlug: 'acme', SealAssertionJson: JSON.stringify(assertion) });
    expect(started.status).toBe(201);
    const { location } = await started.json();
    idp.user = { email: 'pat@corp-idp.test', email_verified: true };
    const linked = await oidcFinish(aerie, idp, location, setCookie(started, 'aerie_idp_flow')!);
    const linkSession = sessionOf(linked);
    const [event] = await auditEvents(aerie, acme, 'org.federation.identity_linked');
    expect(event!.businessData).toMatchObject({ membershipId: created.body.id, issuer: idp.issuer, replacedLinkId: null });
    const links = await aerie.request('GET', '/api/v1/users/me/idp-links', { token: pat });
    expect(links.body.links).toEqual([expect.objectContaining({ organization: { id: acme.id, slug: 'acme', name: 'Org acme' }, issuer: idp.issuer, email: 'pat@corp-idp.test' })]);

    // From now on the IdP signs Pat in — into an organization session of acme, never globex.
    const session = sessionOf(await oidcSignIn(aerie, idp, 'acme', { email: 'pat@corp-idp.test', email_verified: true }));
    for (const s of [session, linkSession]) {
      const me = await (await withCookie(aerie, s, 'GET', '/api/v1/users/me')).json();
      expect(me.account.email).toBe('pat@example.test');
      expect(me.organizations.map((o: { slug: string }) => o.slug)).toEqual(['acme']);
      expect((await withCookie(aerie, s, 'GET', '/api/org/acme')).status).toBe(200);
      expect((await withCookie(aerie, s, 'GET', '/api/org/globex')).status).toBe(404);
      expect((await withCookie(aerie, s, 'GET', '/api/v1/users/me/idp-links')).status).toBe(403);
    }
    // Pat's own session still sees both organizations.
    const own = await aerie.request('GET', '/api/v1/users/me?_t=1', { token: pat });
    expect(own.body.organizations.map((o: { slug: string }) => o.slug).sort()).toEqual(['acme', 'globex']);

    // Unlinking stops it: the identity is then only an address acme's IdP vouches for (JIT makes acme's own account for it).
    expect((await aerie.request('DELETE', `/api/v1/users/me/idp-links/${links.body.links[0].id}`, { token: pat })).status).toBe(204);
    expect((await auditEvents(aerie, acme, 'org.federation.identity_unlinked'))).toHaveLength(1);
    const after = sessionOf(await oidcSignIn(aerie, idp, 'acme', { email: 'pat@corp-idp.test', email_verified: true }));
    const who = await (await withCookie(aerie, after, 'GET', '/api/v1/users/me')).json();
    expect(who.account).toMatchObject({ email: 'pat@corp-idp.test', federatedOrgId: acme.id });
    expect((await aerie.request('DELETE', `/api/v1/users/me/idp-links/${links.body.links[0].id}`, { token: pat })).status).toBe(404);
  });

  it('an identity linked to one account cannot be linked to another (refused, audited); a non-member cannot start a link', async () => {
    const auth = authenticatorFor(aerie);
    /** A member of acme with a passkey links the IdP identity `idpEmail` from their browser. */
    const link = async (email: string, idpEmail: string) => {
      const token = await addMembership(aerie, acme, email, 'Member');
      await addPasskey(aerie, token, auth);
      const browser = await cookieSignIn(aerie, email);
      const { assertion } = await signStepUp(aerie, token, auth, { purpose: 'federation.identity.link', subject: 'acme' });
      const started = await withCookie(aerie, browser, 'POST', '/api/v1/users/me/idp-links', { orgSlug: 'acme', SealAssertionJson: JSON.stringify(assertion) });
      expect(started.status).toBe(201);
      idp.user = { email: idpEmail, email_verified: true };
      return oidcFinish(aerie, idp, (await started.json()).location, setCookie(started, 'aerie_idp_flow')!);
    };
    expect((await link('quinn@example.test', 'quinn@corp-idp.test')).status).toBe(303);
    const stolen = await link('rae@example.test', 'quinn@corp-idp.test');
    await refusedWith(stolen, 'identity_linked_elsewhere');
    expect((await auditEvents(aerie, acme, 'org.federation.sign_in_refused')).at(-1)!.businessData).toMatchObject({ reason: 'identity_linked_elsewhere', link: true });
    const [row] = await aerie.sql('select a.email from federation.identity_links l join accounts.accounts a on a.id = l.account_id where l.subject = ?', ['quinn@corp-idp.test']);
    expect(row.email).toBe('quinn@example.test');

    const outsider = await cookieSignIn(aerie, 'owner@globex.test');
    const refused = await withCookie(aerie, outsider, 'POST', '/api/v1/users/me/idp-links', { orgSlug: 'acme' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'PERMISSION_DENIED', reason: 'not_a_member' });
    expect((await withCookie(aerie, outsider, 'POST', '/api/v1/users/me/idp-links', { orgSlug: 'nowhere' })).status).toBe(404);
    // The bearer session cannot start a link: it must happen in the browser that holds the cookie session.
    expect((await aerie.request('POST', '/api/v1/users/me/idp-links', { token: globex.owner, body: { orgSlug: 'acme' } })).status).toBe(401);
  });
});

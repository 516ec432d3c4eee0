import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { hasOpenssl } from '../../helpers/tls-receiver.ts';
import { SamlIdp, type AssertionInput } from '../../helpers/saml-idp.ts';

const DASHBOARD = 'https://dashboard.example/home';

describe.skipIf(!hasOpenssl)('federation: SAML sign-in (/idp/{slug}/login, /idp/{slug}/saml/acs) with a locally signed IdP response', () => {
  let aerie: TestAerie;
  let idp: SamlIdp;
  let acme: TestOrg;
  let globex: TestOrg;
  let acs: string;
  let audience: string;

  const get = (path: string) => fetch(aerie.url + path, { redirect: 'manual' });
  const jsonOf = async (res: Response) => JSON.parse(await res.text());

  /** `/login` at `slug`: the flow cookie and the request id the answer must be in response to. */
  async function login(slug = 'acme'): Promise<{ cookie: string; requestId: string; location: URL }> {
    const res = await get(`/idp/${slug}/login`);
    expect(res.status).toBe(302);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('aerie_idp_flow='))!.split(';')[0]!;
    const [row] = await aerie.sql('select saml_request_id from federation.signin_flows order by created_at desc limit 1');
    return { cookie, requestId: row.saml_request_id, location: new URL(res.headers.get('location')!) };
  }

  const post = (xml: string, cookie: string, slug = 'acme') => fetch(`${aerie.url}/idp/${slug}/saml/acs`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64'), RelayState: '' }).toString(),
  });

  async function refused(res: Response, reason: string): Promise<void> {
    const body = await jsonOf(res);
    expect(res.status, JSON.stringify(body)).toBe(401);
    expect(body).toEqual({ error: 'IDP_SIGNIN_FAILED', message: expect.any(String), reason });
    expect(res.headers.getSetCookie().some((c) => c.startsWith('aerie_session='))).toBe(false);
  }

  const answer = (requestId: string, extra: Partial<AssertionInput> = {}): AssertionInput => ({ email: 'member@acme.test', inResponseTo: requestId, audience, recipient: acs, ...extra });

  beforeAll(async () => {
    idp = new SamlIdp();
    aerie = await TestAerie.start({ exactBaseUrl: true, overrides: { dashboardUrl: DASHBOARD } });
    acs = `${aerie.url}/idp/acme/saml/acs`;
    audience = `${aerie.url}/idp/acme/saml`;
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    for (const org of [acme, globex]) {
      const res = await aerie.request('POST', `/api/org/${org.slug}/idp-connections`, {
        token: org.owner, body: { provider: 'custom-saml', saml_sso_url: 'https://idp.example/sso', saml_entity_id: idp.entityId, saml_certificate: idp.certificate, allow_jit: org === acme },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    // member@acme.test: acme's own account, made by its IdP (JIT).
    const { cookie, requestId } = await login();
    expect((await post(idp.signedResponse(answer(requestId)), cookie)).status).toBe(303);
  });
  afterAll(async () => {
    await aerie?.close();
  });

  it('login redirects to the IdP’s SSO URL with an AuthnRequest (HTTP-Redirect binding) and keeps its id', async () => {
    const { location, requestId } = await login();
    expect(location.origin + location.pathname).toBe('https://idp.example/sso');
    expect(location.searchParams.get('SAMLRequest')).toBeTruthy();
    expect(requestId).toMatch(/^_/);
  });

  it('signs an active member in with a signed assertion: 303 to the dashboard with a cookie session; audited', async () => {
    const { cookie, requestId } = await login();
    const res = await post(idp.signedResponse(answer(requestId)), cookie);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${DASHBOARD}#csrf_token=`));
    const session = res.headers.getSetCookie().find((c) => c.startsWith('aerie_session='))!;
    const me = await fetch(`${aerie.url}/api/v1/users/me`, { headers: { cookie: session.split(';')[0]! } });
    expect((await jsonOf(me)).account.email).toBe('member@acme.test');
    const event = (await auditEvents(aerie, acme, 'org.idp_signin.succeeded')).at(-1);
    expect(event!.businessData).toMatchObject({ protocol: 'saml', joined: false, via: 'directory' });
  });

  it('refuses a tampered assertion (signed for one member, the email changed after signing)', async () => {
    const { cookie, requestId } = await login();
    const signed = idp.signedResponse(answer(requestId));
    await refused(await post(signed.replaceAll('member@acme.test', 'owner@acme.test'), cookie), 'saml_signature_invalid');
  });

  it('refuses an unsigned assertion and one signed by another key', async () => {
    let flow = await login();
    await refused(await post(idp.response(idp.assertion(answer(flow.requestId)), answer(flow.requestId)), flow.cookie), 'saml_signature_invalid');
    flow = await login();
    await refused(await post(new SamlIdp().signedResponse(answer(flow.requestId)), flow.cookie), 'saml_signature_invalid');
  });

  it('refuses an assertion for another audience, and one for another recipient', async () => {
    let flow = await login();
    await refused(await post(idp.signedResponse(answer(flow.requestId, { audience: 'https://other-sp.example/saml' })), flow.cookie), 'saml_audience_mismatch');
    flow = await login();
    await refused(await post(idp.signedResponse(answer(flow.requestId, { recipient: 'https://other-sp.example/acs' })), flow.cookie), 'saml_recipient_mismatch');
  });

  it('refuses an expired assertion', async () => {
    const { cookie, requestId } = await login();
    await refused(await post(idp.signedResponse(answer(requestId, { notBefore: -900, notOnOrAfter: -600 })), cookie), 'saml_expired');
  });

  it('refuses a replayed answer: the same post again (flow used), and under a new flow (InResponseTo of another request)', async () => {
    const first = await login();
    const xml = idp.signedResponse(answer(first.requestId));
    expect((await post(xml, first.cookie)).status).toBe(303);
    await refused(await post(xml, first.cookie), 'flow_used');
    const second = await login();
    await refused(await post(xml, second.cookie), 'saml_in_response_to_mismatch');
  });

  it('refuses a wrapped signature: a forged assertion beside the genuine signed one is never the one read', async () => {
    const { cookie, requestId } = await login();
    const genuine = idp.sign(idp.assertion(answer(requestId)));
    // XSW: the forged assertion reuses the genuine one's ID and signature; the genuine one hides in Extensions.
    const forged = genuine.replaceAll('member@acme.test', 'owner@acme.test');
    const wrapped = idp.response(forged, answer(requestId), `<samlp:Extensions>${genuine}</samlp:Extensions>`);
    await refused(await post(wrapped, cookie), 'saml_signature_invalid');
    const second = await login();
    const genuine2 = idp.sign(idp.assertion(answer(second.requestId)));
    const evil = idp.assertion(answer(second.requestId, { email: 'owner@acme.test' }));
    await refused(await post(idp.response(genuine2 + evil, answer(second.requestId)), second.cookie), 'saml_signature_invalid');
  });

  it('refuses acme’s flow at globex’s ACS (cross-organization)', async () => {
    const { cookie, requestId } = await login('acme');
    const xml = idp.signedResponse(answer(requestId, { audience: `${aerie.url}/idp/globex/saml`, recipient: `${aerie.url}/idp/globex/saml/acs`, email: 'owner@globex.test' }));
    await refused(await post(xml, cookie, 'globex'), 'flow_other_organization');
    expect(await auditEvents(aerie, globex, 'org.idp_signin.succeeded')).toEqual([]);
  });

  it('after deactivation the ACS and login answer 404 idp_not_configured', async () => {
    const { cookie, requestId } = await login('globex');
    expect((await aerie.request('POST', '/api/org/globex/idp-connections/deactivate', { token: globex.owner })).status).toBe(204);
    for (const res of [await get('/idp/globex/login'), await post(idp.signedResponse(answer(requestId)), cookie, 'globex')]) {
      expect(res.status).toBe(404);
      expect((await jsonOf(res)).error).toBe('idp_not_configured');
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { hasOpenssl, TlsReceiver } from '../../helpers/tls-receiver.ts';
import { addMembership } from '../apps/helpers.ts';

const BASE = (slug: string) => `/api/org/${slug}/idp-connections`;

describe.skipIf(!hasOpenssl)('federation: IdP connections (/api/org/{slug}/idp-connections)', () => {
  let aerie: TestAerie;
  let idp: TlsReceiver;
  let acme: TestOrg;
  let globex: TestOrg;
  let member: string;
  let certBase64: string;

  beforeAll(async () => {
    idp = await TlsReceiver.start();
    certBase64 = readFileSync(idp.caFile, 'utf8').replace(/-----[A-Z ]+-----|\s/g, '');
    const origin = `https://localhost:${idp.port}`;
    const metadata = (body: string) => `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example/saml">${body}</md:EntityDescriptor>`;
    idp.handler = (q, res) => {
      const json = (o: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o));
      if (q.url === '/.well-known/openid-configuration') return json({ issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, jwks_uri: `${origin}/jwks` });
      if (q.url === '/http-endpoints') return json({ issuer: origin, authorization_endpoint: 'http://idp.example/authorize', token_endpoint: `${origin}/token` });
      if (q.url === '/metadata') {
        return res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadata(`<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
          <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBase64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
          <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example/saml/post"/>
          <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/saml/redirect"/></md:IDPSSODescriptor>`));
      }
      res.writeHead(404).end();
    };
    aerie = await TestAerie.start({ overrides: { 'egress.allowLoopback': true, 'egress.caFiles': [idp.caFile] } });
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
  });
  afterAll(async () => {
    await aerie?.close();
    await idp?.close();
  });

  const post = (body: unknown, org = acme, token = org.owner) => aerie.request('POST', BASE(org.slug), { token, body });
  const rows = async (org: TestOrg) => aerie.sql('select provider, is_active, client_secret_ciphertext from federation.connections where org_id = ? order by created_at', [org.id]);

  it('starts with native login: no connection', async () => {
    expect((await aerie.request('GET', BASE('acme'), { token: acme.owner })).body).toEqual({ connection: null });
  });

  it('configures OpenID Connect from a discovery document fetched through the guarded client; the secret is encrypted and never shown', async () => {
    const res = await post({ provider: 'custom-oidc', oidc_discovery_url: idp.url('/.well-known/openid-configuration'), oidc_client_id: 'aerie', oidc_client_secret: 's3cret-value' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const origin = `https://localhost:${idp.port}`;
    expect(res.body).toEqual({
      id: expect.any(String), provider: 'custom-oidc', protocol: 'oidc', is_active: true, allow_jit: false, created_at: expect.any(String),
      oidc_discovery_url: idp.url('/.well-known/openid-configuration'), oidc_issuer: origin, oidc_authorization_endpoint: `${origin}/authorize`,
      oidc_token_endpoint: `${origin}/token`, oidc_jwks_uri: `${origin}/jwks`, oidc_client_id: 'aerie', oidc_client_secret_set: true,
    });
    expect((await aerie.request('GET', BASE('acme'), { token: acme.owner })).body.connection).toEqual(res.body);
    const [row] = await rows(acme);
    expect(row.client_secret_ciphertext).not.toContain('s3cret');
    const audit = await auditEvents(aerie, acme, 'org.idp_connection.created');
    expect(audit[0].businessData).toMatchObject({ connectionId: res.body.id, provider: 'custom-oidc', issuer: origin, clientId: 'aerie' });
    expect(JSON.stringify(audit)).not.toContain('s3cret');
  });

  it('saving the same provider again replaces it (history kept); a blank secret reuses the prior one', async () => {
    const origin = `https://localhost:${idp.port}`;
    const res = await post({ provider: 'custom-oidc', oidc_issuer: origin, oidc_authorization_endpoint: `${origin}/authorize`, oidc_token_endpoint: `${origin}/token`, oidc_client_id: 'aerie-2', oidc_client_secret: '' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ oidc_client_id: 'aerie-2', oidc_discovery_url: null, oidc_client_secret_set: true });
    const all = await rows(acme);
    expect(all.map((r) => r.is_active)).toEqual([false, true]);
    expect(all[1].client_secret_ciphertext).toBe(all[0].client_secret_ciphertext);
  });

  it('refuses to switch providers directly (409), and the database holds one active row whatever happens', async () => {
    const res = await post({ provider: 'custom-saml', saml_metadata_url: idp.url('/metadata') });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'IDP_SWITCH_REQUIRES_DEACTIVATION', activeProvider: 'custom-oidc' });
    await expect(aerie.sql("update federation.connections set is_active = true where org_id = ?", [acme.id])).rejects.toThrow(/connections_one_active|duplicate key/);
  });

  it('deactivates back to native login; a second deactivation is 404 idp_not_configured', async () => {
    expect((await aerie.request('POST', `${BASE('acme')}/deactivate`, { token: acme.owner })).status).toBe(204);
    expect((await aerie.request('GET', BASE('acme'), { token: acme.owner })).body).toEqual({ connection: null });
    const again = await aerie.request('POST', `${BASE('acme')}/deactivate`, { token: acme.owner });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('idp_not_configured');
    expect((await auditEvents(aerie, acme, 'org.idp_connection.deactivated')).length).toBe(1);
  });

  it('configures SAML from a metadata URL: entity id, the HTTP-Redirect SSO URL and the signing certificate', async () => {
    const res = await post({ provider: 'custom-saml', saml_metadata_url: idp.url('/metadata'), allow_jit: true });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      provider: 'custom-saml', protocol: 'saml', allow_jit: true, saml_metadata_url: idp.url('/metadata'), saml_entity_id: 'https://idp.example/saml',
      saml_sso_url: 'https://idp.example/saml/redirect', saml_certificates: [{ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), not_after: expect.any(String) }],
    });
    expect(res.body.oidc_client_secret_set).toBeUndefined();
    // Manual SAML on the same provider: a blank certificate keeps the prior one.
    const manual = await post({ provider: 'custom-saml', saml_sso_url: 'https://idp.example/sso2', saml_entity_id: 'https://idp.example/e2', saml_certificate: '' });
    expect(manual.status, JSON.stringify(manual.body)).toBe(201);
    expect(manual.body.saml_certificates).toEqual(res.body.saml_certificates);
    await aerie.request('POST', `${BASE('acme')}/deactivate`, { token: acme.owner });
  });

  it.each([
    [{ provider: 'custom-oidc', oidc_discovery_url: 'https://10.0.0.7/.well-known/openid-configuration', oidc_client_id: 'x' }, 'IDP_CONFIG_INVALID', 'oidc_discovery_url'],
    [{ provider: 'custom-oidc', oidc_discovery_url: 'http://idp.example/', oidc_client_id: 'x' }, 'IDP_CONFIG_INVALID', 'oidc_discovery_url'],
    [{ provider: 'named-okta', oidc_discovery_url: 'PLACEHOLDER/http-endpoints', oidc_client_id: 'x' }, 'IDP_DISCOVERY_FAILED', 'oidc_discovery_url'],
    [{ provider: 'named-okta', oidc_discovery_url: 'PLACEHOLDER/missing', oidc_client_id: 'x' }, 'IDP_DISCOVERY_FAILED', 'oidc_discovery_url'],
    [{ provider: 'custom-oidc', oidc_discovery_url: 'PLACEHOLDER/.well-known/openid-configuration' }, 'IDP_CONFIG_INVALID', 'oidc_client_id'],
    [{ provider: 'custom-oidc', oidc_issuer: 'https://idp.example', oidc_client_id: 'x' }, 'IDP_CONFIG_INVALID', 'oidc_issuer'],
    [{ provider: 'custom-saml' }, 'IDP_CONFIG_INVALID', 'saml_metadata_url'],
    [{ provider: 'custom-saml', saml_metadata_xml: '<!DOCTYPE x [<!ENTITY a "b">]><EntityDescriptor/>' }, 'IDP_CONFIG_INVALID', 'saml_metadata_xml'],
    [{ provider: 'custom-saml', saml_metadata_xml: '<EntityDescriptor entityID="x"/>' }, 'IDP_CONFIG_INVALID', 'saml_metadata_xml'],
    [{ provider: 'custom-saml', saml_sso_url: 'https://idp.example/sso', saml_entity_id: 'e' }, 'IDP_CONFIG_INVALID', 'saml_certificate'],
    [{ provider: 'custom-saml', saml_sso_url: 'https://idp.example/sso', saml_entity_id: 'e', saml_certificate: 'bm90IGEgY2VydA==' }, 'IDP_CONFIG_INVALID', 'saml_certificate'],
    [{ provider: 'custom-saml', saml_sso_url: 'http://idp.example/sso', saml_entity_id: 'e', saml_certificate: 'x' }, 'IDP_CONFIG_INVALID', 'saml_sso_url'],
    [{ provider: 'custom-oidc', oidc_issuer: 'PLACEHOLDER', oidc_authorization_endpoint: 'https://idp.example/a', oidc_token_endpoint: 'https://169.254.169.254/token', oidc_client_id: 'x' }, 'IDP_CONFIG_INVALID', 'oidc_token_endpoint'],
    [{ provider: 'named-okta', oidc_discovery_url: 'https://169.254.169.254/.well-known/openid-configuration', oidc_client_id: 'x' }, 'IDP_CONFIG_INVALID', 'oidc_discovery_url'],
    [{ provider: 'custom-saml', saml_metadata_url: 'https://10.0.0.8/metadata' }, 'IDP_CONFIG_INVALID', 'saml_metadata_url'],
    [{ provider: 'named-unknown' }, 'VALIDATION_FAILED', 'provider'],
    [{ provider: 'custom-oidc', extra: 1 }, 'VALIDATION_FAILED', 'extra'],
  ])('refuses %j (%s) and saves nothing', async (body, error, field) => {
    const fixed = JSON.parse(JSON.stringify(body).replaceAll('PLACEHOLDER', `https://localhost:${idp.port}`));
    const before = (await rows(acme)).length;
    const res = await post(fixed);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe(error);
    expect(res.body.field).toContain(field);
    // A refused address is only refused: never what a name resolves to, or which kind of address it is.
    expect(JSON.stringify(res.body)).not.toMatch(/resolves|loopback|private|link.local|metadata address/i);
    expect((await rows(acme)).length).toBe(before);
  });

  it('tests a configuration without saving it: what discovery found, or the same refusal', async () => {
    const before = (await rows(acme)).length;
    const ok = await aerie.request('POST', '/api/org/acme/settings/federation/test', { token: acme.owner, body: { provider: 'named-google', oidc_discovery_url: idp.url('/.well-known/openid-configuration'), oidc_client_id: 'c' } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ provider: 'named-google', protocol: 'oidc', oidc_issuer: `https://localhost:${idp.port}`, oidc_client_secret_set: false });
    expect(ok.body.id).toBeUndefined();
    const saml = await aerie.request('POST', '/api/org/acme/settings/federation/test', { token: acme.owner, body: { provider: 'custom-saml', saml_metadata_url: idp.url('/metadata') } });
    expect(saml.body).toMatchObject({ saml_entity_id: 'https://idp.example/saml', saml_sso_url: 'https://idp.example/saml/redirect' });
    const bad = await aerie.request('POST', '/api/org/acme/settings/federation/test', { token: acme.owner, body: { provider: 'custom-oidc', oidc_discovery_url: idp.url('/missing'), oidc_client_id: 'c' } });
    expect(bad.body).toMatchObject({ error: 'IDP_DISCOVERY_FAILED', reason: expect.stringContaining('404') });
    expect((await rows(acme)).length).toBe(before);
    expect((await aerie.request('POST', '/api/org/acme/settings/federation/test', { token: member, body: { provider: 'custom-saml', saml_metadata_url: idp.url('/metadata') } })).status).toBe(403);
  });

  it('is for Owner and Admin only; another organization sees its own (none)', async () => {
    const admin = await addMembership(aerie, acme, 'admin@acme.test', 'Admin');
    expect((await aerie.request('GET', BASE('acme'), { token: admin })).status).toBe(200);
    expect((await aerie.request('GET', BASE('globex'), { token: globex.owner })).body).toEqual({ connection: null });
    expect((await aerie.request('GET', BASE('acme'), { token: globex.owner })).status).toBe(404);
  });

  describe('a plain Member is refused every idp-connection route (403 PERMISSION_DENIED), and nothing changes', () => {
    const saml = () => ({ provider: 'custom-saml', saml_metadata_url: idp.url('/metadata') });
    beforeAll(async () => expect((await post(saml())).status).toBe(201));
    afterAll(async () => expect((await aerie.request('POST', `${BASE('acme')}/deactivate`, { token: acme.owner })).status).toBe(204));
    it.each<[string, string, () => unknown, string]>([
      ['GET', '/api/org/acme/idp-connections', () => undefined, 'org.idp_connection.read'],
      ['POST', '/api/org/acme/idp-connections', saml, 'org.idp_connection.create'],
      ['POST', '/api/org/acme/idp-connections/deactivate', () => undefined, 'org.idp_connection.deactivate'],
      ['POST', '/api/org/acme/settings/federation', saml, 'org.idp_connection.create'],
      ['POST', '/api/org/acme/settings/federation/test', saml, 'org.idp_connection.create'],
      ['DELETE', '/api/org/acme/settings/federation/custom-saml', () => undefined, 'org.idp_connection.deactivate'],
    ])('%s %s', async (method, path, body, scope) => {
      const before = await rows(acme);
      expect(before.filter((r) => r.is_active)).toEqual([expect.objectContaining({ provider: 'custom-saml' })]); // there is something to read, replace or remove
      const events = (await auditEvents(aerie, acme)).length;
      const res = await aerie.request(method, path, { token: member, body: body() });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'PERMISSION_DENIED', required: scope });
      expect(JSON.stringify(res.body)).not.toMatch(/saml_|oidc_|connection"/);
      expect(await rows(acme)).toEqual(before);
      expect((await auditEvents(aerie, acme)).length).toBe(events);
    });
  });

  it('serves the settings page over the same records: POST /settings/federation saves, DELETE /settings/federation/{providerId} removes only that provider', async () => {
    const settings = `/api/org/globex/settings/federation`;
    const saved = await aerie.request('POST', settings, { token: globex.owner, body: { provider: 'custom-saml', saml_sso_url: 'https://idp.example/sso', saml_entity_id: 'https://idp.example/e', saml_certificate: certBase64 } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expect((await aerie.request('GET', BASE('globex'), { token: globex.owner })).body.connection).toEqual(saved.body);
    const other = await aerie.request('DELETE', `${settings}/custom-oidc`, { token: globex.owner });
    expect(other).toMatchObject({ status: 404, body: { error: 'idp_not_configured' } });
    expect((await aerie.request('DELETE', `${settings}/custom-saml`, { token: acme.owner })).status).toBe(404);
    expect((await aerie.request('DELETE', `${settings}/custom-saml`, { token: globex.owner })).status).toBe(204);
    expect((await aerie.request('GET', BASE('globex'), { token: globex.owner })).body).toEqual({ connection: null });
  });
});

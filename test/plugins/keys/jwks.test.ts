import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify } from 'jose';
import * as client from 'openid-client';
import * as oauth from 'oauth4webapi';
import type { TestAerie } from '../../helpers/harness.ts';
import { createKey, decodeJwt, listKeys, startWithDirectory, tokenFor } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

describe('keys: each organization is an issuer with a JWKS (real clients over HTTP)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let key: { id: string; value: string };
  let issuer: string;
  let audience: string;

  /** The issuer's public address; a reverse proxy in front of the test server, as in production. */
  const BASE_URL = 'http://issuer.aerie.test';
  /** fetch that sends `BASE_URL` requests to the test server (what DNS and the proxy would do). */
  const viaProxy = ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const target = url.origin === BASE_URL ? `${aerie.url}${url.pathname}${url.search}` : url.href;
    return fetch(input instanceof Request ? new Request(target, input) : target, init);
  }) as typeof fetch;
  const remoteJwks = (url: string) => createRemoteJWKSet(new URL(url), { [customFetch]: viaProxy });

  beforeAll(async () => {
    aerie = await startWithDirectory({ env: { AERIE_BASE_URL: BASE_URL } });
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    key = await createKey(aerie, acme, { scopes: ['org.api_key.list'] });
    issuer = `${aerie.kernel.config.baseUrl}/api/public/orgs/acme`;
    audience = `${aerie.kernel.config.baseUrl}/api/org/acme`;
  });
  afterAll(() => aerie?.close());

  it('serves an RFC 7517 JWKS with kid, use sig, alg RS256, no private parts, cacheable', async () => {
    const res = await aerie.request('GET', '/api/public/orgs/acme/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.body.keys).toHaveLength(1);
    const [jwk] = res.body.keys;
    expect(Object.keys(jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(jwk).toMatchObject({ kty: 'RSA', e: 'AQAB', use: 'sig', alg: 'RS256' });
    expect(Buffer.from(jwk.n, 'base64url').length * 8).toBe(2048);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
    const etag = res.headers.get('etag')!;
    const again = await aerie.request('GET', '/api/public/orgs/acme/.well-known/jwks.json', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await aerie.request('GET', '/api/public/orgs/nope-nope/.well-known/jwks.json')).status).toBe(404);
  });

  it("serves openid-configuration: the OpenID provider's (oidc plugin), naming the issuer and this JWKS, at the configured base URL", async () => {
    const res = await aerie.request('GET', '/api/public/orgs/acme/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer, jwks_uri: `${issuer}/.well-known/jwks.json`, token_endpoint: `${issuer}/oauth/token`,
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect((await aerie.request('GET', '/api/public/orgs/nope-nope/.well-known/openid-configuration')).status).toBe(404);
  });

  it('keeps the private key envelope-encrypted at rest', async () => {
    const rows = await aerie.sql('select private_key_enc from keys.signing_keys where org_id = ?', [acme.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].private_key_enc).toMatch(/^aev1\./);
    expect(rows[0].private_key_enc).not.toContain('PRIVATE KEY');
  });

  it('tokens verify with jose.createRemoteJWKSet against the served JWKS', async () => {
    const token = await tokenFor(aerie, acme, key.value);
    const jwks = remoteJwks(`${issuer}/.well-known/jwks.json`);
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer, audience, algorithms: ['RS256'], typ: 'at+jwt' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: key.id, org: 'acme', scope: 'org.api_key.list' });
  });

  it('tokens verify through openid-client discovery of the issuer (and RFC 9068 validation)', async () => {
    const config = await client.discovery(new URL(issuer), 'aerie-test', undefined, client.None(), {
      execute: [client.allowInsecureRequests], [client.customFetch]: viaProxy as client.CustomFetch,
    });
    const as = config.serverMetadata();
    expect(as.issuer).toBe(issuer);
    const token = await tokenFor(aerie, acme, key.value);
    const { payload } = await jwtVerify(token, remoteJwks(as.jwks_uri!), { issuer: as.issuer, audience, algorithms: as.id_token_signing_alg_values_supported });
    expect(payload.client_id).toBe(key.id);
    const request = new Request(`${audience}/settings/keys/api-keys`, { headers: { authorization: `Bearer ${token}` } });
    const claims = await oauth.validateJwtAccessToken(as as oauth.AuthorizationServer, request, audience, {
      [oauth.allowInsecureRequests]: true, [oauth.customFetch]: viaProxy as never, signingAlgorithms: ['RS256'],
    });
    expect(claims).toMatchObject({ iss: issuer, sub: key.id, client_id: key.id });
  });

  it('after rotation the old key leaves the JWKS: old tokens stop verifying, new ones verify', async () => {
    const old = await tokenFor(aerie, acme, key.value);
    const oldKid = decodeJwt(old).header.kid;
    const member = await aerie.signIn('member@acme.test');
    await aerie.sql(`insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
      select gen_random_uuid(), ?, id, 'Member', 'active', now(), now() from accounts.accounts where email = 'member@acme.test'`, [acme.id]);
    const refused = await aerie.request('POST', '/api/org/acme/settings/keys/signing-key/rotate', { token: member });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('PERMISSION_DENIED');

    const res = await aerie.request('POST', '/api/org/acme/settings/keys/signing-key/rotate', { token: acme.owner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ retiredKid: oldKid, issuer, jwksUri: `${issuer}/.well-known/jwks.json` });
    expect(res.body.kid).not.toBe(oldKid);
    const jwks = await aerie.request('GET', '/api/public/orgs/acme/.well-known/jwks.json');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual([res.body.kid]);
    const rotatedEvents = (await auditEvents(aerie, { id: acme.id })).filter((e) => e.eventType === 'org.signing_key.rotated');
    expect(rotatedEvents.map((e) => e.businessData)).toEqual([{ kid: res.body.kid, retiredKid: oldKid }]);

    const remote = remoteJwks(`${issuer}/.well-known/jwks.json`);
    await expect(jwtVerify(old, remote, { issuer, audience })).rejects.toBeInstanceOf(joseErrors.JWKSNoMatchingKey);
    expect((await listKeys(aerie, 'acme', old)).status).toBe(401);
    const fresh = await tokenFor(aerie, acme, key.value);
    await expect(jwtVerify(fresh, remote, { issuer, audience })).resolves.toBeTruthy();
    expect((await listKeys(aerie, 'acme', fresh)).status).toBe(200);
  });

  it('creates a signing key on first need for organizations that have none (made before the plugin)', async () => {
    const legacy = await signInWithOrg(aerie, 'owner@legacy.test', 'legacy');
    const legacyKey = await createKey(aerie, legacy, { scopes: ['org.api_key.list'] });
    const other = await signInWithOrg(aerie, 'owner@older.test', 'older');
    await aerie.sql('delete from keys.signing_keys where org_id in (?, ?)', [legacy.id, other.id]);

    const token = await tokenFor(aerie, legacy, legacyKey.value);
    const [created] = await aerie.sql('select kid from keys.signing_keys where org_id = ? and retired_at is null', [legacy.id]);
    expect(decodeJwt(token).header.kid).toBe(created.kid);
    expect((await listKeys(aerie, 'legacy', token)).status).toBe(200);

    const [a, b] = await Promise.all([
      aerie.request('GET', '/api/public/orgs/older/.well-known/jwks.json'),
      aerie.request('GET', '/api/public/orgs/older/.well-known/jwks.json'),
    ]);
    expect(a.status).toBe(200);
    expect(b.body.keys[0].kid).toBe(a.body.keys[0].kid);
    expect(await aerie.sql('select kid from keys.signing_keys where org_id = ?', [other.id])).toHaveLength(1);
  });
});

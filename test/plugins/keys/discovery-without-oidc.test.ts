/**
 * Without the oidc plugin (a self-hosted subset), the issuer's discovery document is the keys
 * plugin's own: machine tokens only, through `/api/m2m/token`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg } from '../../helpers/orgs.ts';

describe('keys: the discovery document without the oidc plugin', () => {
  let aerie: TestAerie;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'keys'] });
    await signInWithOrg(aerie, 'owner@acme.test', 'acme');
  });
  afterAll(() => aerie?.close());

  it('names the issuer, the JWKS, the machine-token endpoint and RS256, cacheable for an hour', async () => {
    const issuer = `${aerie.kernel.config.baseUrl}/api/public/orgs/acme`;
    const res = await aerie.request('GET', '/api/public/orgs/acme/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      issuer, jwks_uri: `${issuer}/.well-known/jwks.json`, token_endpoint: `${aerie.kernel.config.baseUrl}/api/m2m/token`,
      grant_types_supported: ['client_credentials'], token_endpoint_auth_methods_supported: ['aerie_api_key'], scopes_supported: [],
      subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'], access_token_signing_alg_values_supported: ['RS256'],
    });
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect((await aerie.request('GET', '/api/public/orgs/nope-nope/.well-known/openid-configuration')).status).toBe(404);
  });
});

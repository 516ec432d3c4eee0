import fc from 'fast-check';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import type { SigningKeysService } from '../../../plugins/keys/api.ts';
import type { Signer } from '../../../plugins/keys/signing-keys.service.ts';
import { createKey, startWithDirectory, tokenFor } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

/**
 * Access tokens are signed with `crypto.sign` on libuv's pool and verified with jose (docs/api/keys.md, "The token"):
 * every token the signer produces — through `POST /api/m2m/token` and for arbitrary claim sets —
 * verifies with jose against the organization's published JWKS, with exactly the header
 * `{alg: RS256, typ: at+jwt, kid}` and exactly the claims it was given.
 */
describe('keys: tokens signed on the pool verify with jose against the published JWKS', () => {
  let aerie: TestAerie;
  let orgs: TestOrg[];
  let signingKeys: SigningKeysService;
  /** `{base_url}`, as the discovery document states it. */
  let base: string;
  /** Every token signed in this suite, with the claims it was asked to carry. */
  const signed: Array<{ kid: string; claims: Record<string, unknown>; token: string }> = [];

  beforeAll(async () => {
    aerie = await startWithDirectory();
    orgs = [await signInWithOrg(aerie, 'owner@acme.test', 'acme'), await signInWithOrg(aerie, 'owner@globex.test', 'globex')];
    base = (await aerie.request('GET', '/api/public/orgs/acme/.well-known/openid-configuration')).body.issuer.replace('/api/public/orgs/acme', '');
    signingKeys = aerie.kernel.container.resolve<SigningKeysService>('keys.signingKeys');
    // Record every signature the service makes: the suite checks all of them.
    const signer = signingKeys.signer.bind(signingKeys);
    signingKeys.signer = async (kid: string): Promise<Signer> => {
      const s = await signer(kid);
      return { ...s, sign: async (claims) => { const token = await s.sign(claims); signed.push({ kid, claims: { ...claims }, token }); return token; } };
    };
  });
  afterAll(() => aerie?.close());

  async function verifyAll(): Promise<number> {
    let checked = 0;
    for (const { kid, claims, token } of signed.splice(0)) {
      const slug = String(claims.org);
      const jwks: JSONWebKeySet = (await aerie.request('GET', `/api/public/orgs/${slug}/.well-known/jwks.json`)).body;
      if (!jwks.keys.some((k) => k.kid === kid)) continue; // rotated away since: verified before the rotation
      const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
        issuer: `${base}/api/public/orgs/${slug}`, audience: `${base}/api/org/${slug}`,
        algorithms: ['RS256'], typ: 'at+jwt', currentDate: new Date(Number(claims.iat) * 1000),
      });
      expect(protectedHeader).toStrictEqual({ alg: 'RS256', typ: 'at+jwt', kid });
      expect(Object.keys(decodeProtectedHeader(token))).toEqual(['alg', 'typ', 'kid']);
      expect(payload).toStrictEqual(claims);
      checked++;
    }
    return checked;
  }

  it('every token issued by POST /api/m2m/token, for each organization, scope and lifetime, and after a rotation', async () => {
    for (const org of orgs) {
      const key = await createKey(aerie, org, { scopes: ['org.api_key.list', 'org.member.list', 'org.role.*'] });
      await tokenFor(aerie, org, key.value);
      await tokenFor(aerie, org, key.value, { scope: 'org.member.list', lifetimeSeconds: 60 });
      await tokenFor(aerie, org, key.value, { scope: ['org.role.read', 'org.api_key.list'], lifetimeSeconds: 120 });
      await tokenFor(aerie, org, (await createKey(aerie, org)).value, { scope: '' });
    }
    expect(await verifyAll()).toBe(8);
    expect((await aerie.request('POST', '/api/org/globex/settings/keys/signing-key/rotate', { token: orgs[1].owner })).status).toBe(200);
    await tokenFor(aerie, orgs[1], (await createKey(aerie, orgs[1])).value);
    expect(await verifyAll()).toBe(1);
  });

  it('tokens issued at once (many signatures in flight on the pool) each carry their own claims and verify', async () => {
    const keys = await Promise.all(orgs.map((org) => createKey(aerie, org, { scopes: ['org.member.list'] })));
    const tokens = await Promise.all(Array.from({ length: 40 }, (_, i) => tokenFor(aerie, orgs[i % 2], keys[i % 2].value, { lifetimeSeconds: 60 + i })));
    expect(new Set(tokens).size).toBe(40);
    expect(signed.map((s) => s.token).sort()).toEqual([...tokens].sort());
    expect(signed.map((s) => Number(s.claims.exp) - Number(s.claims.iat)).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => 60 + i));
    expect(await verifyAll()).toBe(40);
  });

  it('arbitrary claim sets round-trip exactly (Unicode, long scopes, optional app_group)', async () => {
    const jwks = (await aerie.request('GET', '/api/public/orgs/acme/.well-known/jwks.json')).body as JSONWebKeySet;
    const signer = await signingKeys.signer(String(jwks.keys[0].kid));
    signed.length = 0;
    await fc.assert(fc.asyncProperty(
      fc.record({
        sub: fc.string({ minLength: 1 }), scope: fc.array(fc.stringMatching(/^[a-z_.*:=]{1,40}$/), { maxLength: 30 }).map((s) => s.join(' ')),
        client_id: fc.uuid(), jti: fc.uuid(), iat: fc.integer({ min: 1_700_000_000, max: 2_000_000_000 }), ttl: fc.integer({ min: 60, max: 604_800 }),
        app_group: fc.option(fc.string({ unit: 'binary', minLength: 1, maxLength: 50 }), { nil: undefined }),
      }),
      async ({ ttl, app_group, ...c }) => {
        const claims = {
          iss: `${base}/api/public/orgs/acme`, sub: c.sub, aud: `${base}/api/org/acme`, org: 'acme', scope: c.scope,
          client_id: c.client_id, ...(app_group === undefined ? {} : { app_group }), jti: c.jti, iat: c.iat, exp: c.iat + ttl,
        };
        await signer.sign(claims);
      },
    ), { numRuns: 60 });
    expect(await verifyAll()).toBe(60);
  });
});

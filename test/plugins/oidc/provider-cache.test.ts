/**
 * One provider per organization in a bounded cache: more organizations than the cache holds still
 * sign in (a dropped provider is rebuilt from the database, losing nothing), and a key rotation
 * rebuilds the organization's provider so the next tokens carry the new key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { decodeProtectedHeader } from 'jose';
import { TestAerie } from '../../helpers/harness.ts';
import { authorizationRequest, browserSignIn, CookieJar, relyingParty, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: the provider cache', () => {
  let aerie: TestAerie;
  const worlds: SignInWorld[] = [];

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true, overrides: { 'oidc.providerCacheSize': 2 } });
    for (const slug of ['one', 'two', 'three']) worlds.push(await signInWorld(aerie, slug));
  });
  afterAll(async () => aerie?.close());

  async function signIn(world: SignInWorld, jar = new CookieJar()) {
    const rp = await relyingParty(world);
    const request = await authorizationRequest(rp);
    const tokens = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, jar, request.url, world.email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
    return { rp, tokens };
  }

  it('serves three organizations through a cache of two, refresh tokens surviving their provider being dropped', async () => {
    const first = await signIn(worlds[0]);
    await signIn(worlds[1]);
    await signIn(worlds[2]); // drops the first organization's provider
    const refreshed = await oidc.refreshTokenGrant(first.rp, first.tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
  });

  it('rebuilds an organization\'s provider when its signing key is rotated', async () => {
    const world = worlds[1];
    const before = await signIn(world);
    const oldKid = decodeProtectedHeader(before.tokens.access_token).kid;
    const rotated = await aerie.request('POST', `/api/org/${world.org.slug}/settings/keys/signing-key/rotate`, { token: world.org.owner });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.retiredKid).toBe(oldKid);
    const after = await signIn(world);
    expect(decodeProtectedHeader(after.tokens.access_token).kid).toBe(rotated.body.kid);
    expect(decodeProtectedHeader(after.tokens.id_token!).kid).toBe(rotated.body.kid);
    // What the old key signed stops verifying at once.
    expect(await oidc.tokenIntrospection(after.rp, before.tokens.access_token)).toEqual({ active: false });
    expect((await oidc.tokenIntrospection(after.rp, after.tokens.access_token)).active).toBe(true);
  });
});

/**
 * Aerie's permission check for an application's backend (docs/api/signin.md "Permission check"):
 * an API key plus the end user's access token; the answer reads permissions and state fresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { createKey } from '../../helpers/api-keys.ts';
import { createGroup } from '../apps/helpers.ts';
import { endUserAccessToken, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: the end-user permission check', () => {
  let aerie: TestAerie;
  let world: SignInWorld;
  let other: SignInWorld;
  let key: string;
  let token: string;

  const check = (permission: string, bearer: string | null = token, apiKey = key) =>
    aerie.request('POST', '/api/public/v1/end-users/permission-check', {
      headers: { 'x-api-key': apiKey, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body: { permission },
    });
  const setPermissions = (permissions: string[]) => aerie.request('PUT', `/api/org/acme/endusers/${world.endUserId}/groups/${world.groupId}/permissions`, {
    token: world.org.owner, body: { permissions },
  });

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true });
    world = await signInWorld(aerie, 'acme');
    other = await signInWorld(aerie, 'globex');
    key = (await createKey(aerie, world.org)).value;
    expect((await setPermissions(['orders:read'])).status).toBe(200);
    token = await endUserAccessToken(aerie, world);
  });
  afterAll(async () => aerie?.close());

  it('answers whether the end user holds a permission, and a change applies to the same token at once', async () => {
    expect((await check('orders:read')).body).toEqual({ active: true, allowed: true, endUserId: world.endUserId, appGroupId: world.groupId });
    expect((await check('orders:write')).body).toMatchObject({ active: true, allowed: false });
    expect((await setPermissions(['orders:write'])).status).toBe(200);
    expect((await check('orders:read')).body).toMatchObject({ active: true, allowed: false });
    expect((await check('orders:write')).body).toMatchObject({ active: true, allowed: true });
  });

  it.each([
    ['no bearer token', () => null, () => key],
    ['a token that is not a JWT', () => 'not.a.token', () => key],
    ["another organization's key", () => token, async () => (await createKey(aerie, other.org)).value],
    ['a key scoped to another app group', () => token, async () => (await createKey(aerie, world.org, { appGroupId: (await createGroup(aerie, world.org, { name: 'Other shop' })).id })).value],
  ])('answers inactive (200, allowed false) for %s', async (_label, bearer, apiKey) => {
    const res = await check('orders:write', bearer(), await apiKey());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false, allowed: false, endUserId: null, appGroupId: null });
  });

  it("lets a key scoped to the token's own app group check it", async () => {
    const scoped = (await createKey(aerie, world.org, { appGroupId: world.groupId })).value;
    expect((await check('orders:write', token, scoped)).body).toMatchObject({ active: true, allowed: true });
  });

  it('answers inactive the moment the end user is suspended; 401 without a key; 400 for a malformed permission', async () => {
    expect((await aerie.request('POST', '/api/public/v1/end-users/permission-check', { headers: { authorization: `Bearer ${token}` }, body: { permission: 'x' } })).status).toBe(401);
    expect((await check('has space')).status).toBe(400);
    expect((await aerie.request('PATCH', `/api/org/acme/endusers/${world.endUserId}/suspend`, { token: world.org.owner })).status).toBe(200);
    expect((await check('orders:write')).body).toMatchObject({ active: false, allowed: false });
  });
});

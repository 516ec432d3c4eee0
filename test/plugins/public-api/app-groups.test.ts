import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { createKey } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { createGroup } from '../apps/helpers.ts';

/** `POST /api/public/v1/orgs/app-groups` and `POST /api/public/v1/app-groups/by-key`: within the key's organization only. */
describe('public-api: app groups', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let acmeKey: string;
  let globexKey: string;
  let scopedKey: string;
  let shop: any;
  let portal: any;
  let theirs: any;

  const post = (path: string, body: unknown, apiKey: string) => aerie.request('POST', path, { body, headers: { 'x-api-key': apiKey } });

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'Ann@Acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'gus@globex.test', 'globex');
    shop = await createGroup(aerie, acme, { name: 'Shop', description: 'The shop', brandColor: '#12ABEF' });
    portal = await createGroup(aerie, acme, { name: 'Portal' });
    theirs = await createGroup(aerie, globex, { name: 'Globex app' });
    acmeKey = (await createKey(aerie, acme)).value;
    globexKey = (await createKey(aerie, globex)).value;
    scopedKey = (await createKey(aerie, acme, { appGroupId: shop.id })).value;
  });
  afterAll(() => aerie?.close());

  it("orgs/app-groups lists the groups of the key's organization that email owns under that name", async () => {
    const res = await post('/api/public/v1/orgs/app-groups', { ownerEmail: 'ann@acme.TEST', orgName: ' org ACME ' }, acmeKey);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual([
      { key: shop.publicKey, name: 'Shop', description: 'The shop' },
      { key: portal.publicKey, name: 'Portal', description: null },
    ]);
  });

  it("orgs/app-groups answers [] for no match, a non-owner, and another organization's owner (no cross-tenant listing)", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ ownerEmail: 'nobody@acme.test', orgName: 'Org acme' }, acmeKey],
      [{ ownerEmail: 'ann@acme.test', orgName: 'other' }, acmeKey],
      [{ ownerEmail: 'ann@acme.test', orgName: 'Org acme' }, globexKey],
      [{ ownerEmail: 'gus@globex.test', orgName: 'Org globex' }, acmeKey],
    ];
    for (const [body, key] of cases) {
      const res = await post('/api/public/v1/orgs/app-groups', body, key);
      expect([body, res.status, res.body]).toEqual([body, 200, []]);
    }
    const own = await post('/api/public/v1/orgs/app-groups', { ownerEmail: 'gus@globex.test', orgName: 'Org globex' }, globexKey);
    expect(own.body).toEqual([{ key: theirs.publicKey, name: 'Globex app', description: null }]);
  });

  it('app-groups/by-key answers the group of the key organization', async () => {
    const res = await post('/api/public/v1/app-groups/by-key', { groupKey: shop.publicKey }, acmeKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ groupKey: shop.publicKey, id: shop.id, orgId: acme.id, name: 'Shop', description: 'The shop', iconUrl: null, brandColor: '#12ABEF' });
  });

  it("app-groups/by-key: 404 for an unknown key and for another organization's group", async () => {
    for (const [groupKey, key] of [['appgroup_nope', acmeKey], [theirs.publicKey, acmeKey], [shop.publicKey, globexKey]]) {
      const res = await post('/api/public/v1/app-groups/by-key', { groupKey }, key);
      expect([groupKey, res.status, res.body.error]).toEqual([groupKey, 404, 'NOT_FOUND']);
    }
  });

  it('refuses app-group-scoped keys (401), missing keys (401) and bad bodies (400)', async () => {
    const scoped = [
      await post('/api/public/v1/orgs/app-groups', { ownerEmail: 'ann@acme.test', orgName: 'Org acme' }, scopedKey),
      await post('/api/public/v1/app-groups/by-key', { groupKey: shop.publicKey }, scopedKey),
    ];
    expect(scoped.map((r) => [r.status, r.body.error])).toEqual([[401, 'UNAUTHORIZED'], [401, 'UNAUTHORIZED']]);
    const anonymous = await aerie.request('POST', '/api/public/v1/app-groups/by-key', { body: { groupKey: shop.publicKey } });
    expect(anonymous.status).toBe(401);
    const bad = [
      await post('/api/public/v1/app-groups/by-key', {}, acmeKey),
      await post('/api/public/v1/app-groups/by-key', { groupKey: shop.publicKey, orgId: globex.id }, acmeKey),
      await post('/api/public/v1/orgs/app-groups', { ownerEmail: 'not-an-email', orgName: 'acme' }, acmeKey),
    ];
    expect(bad.map((r) => [r.status, r.body.error])).toEqual(Array(3).fill([400, 'VALIDATION_FAILED']));
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie, type TestResponse } from '../../helpers/harness.ts';
import { invitationToken } from '../../helpers/org-members.ts';

/**
 * Every answer that carries a token, key, secret, code or challenge is `Cache-Control: no-store`
 * (and so is everything else unless a route says otherwise): a shared cache or the browser's back
 * button must never hand one to someone else. One row per route family that answers a secret.
 */
describe('answers carrying tokens, keys, secrets or challenges send Cache-Control: no-store', () => {
  let aerie: TestAerie;
  let owner: string;
  let keyId: string;
  let keyValue: string;
  beforeAll(async () => {
    aerie = await TestAerie.start();
    owner = await aerie.signIn('owner@nostore.example');
    await aerie.request('POST', '/api/org/create', { token: owner, body: { name: 'No Store', slug: 'nostore' } });
    const created = await aerie.request('POST', '/api/org/nostore/settings/keys/api-keys', { token: owner, body: { name: 'ci' } });
    keyId = created.body.id;
    keyValue = created.body.apiKey;
  });
  afterAll(() => aerie?.close());

  const rows: Array<[string, string, () => Promise<TestResponse>]> = [
    ['sessionToken', 'POST /api/v1/users/verification/email', async () => {
      await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'someone@nostore.example' } });
      return aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'someone@nostore.example', code: aerie.code('someone@nostore.example') } });
    }],
    ['sessionToken', 'POST /api/org/invitation/accept-with-register', async () => {
      const roles = await aerie.request('GET', '/api/org/nostore/roles', { token: owner });
      const RoleId = roles.body.Roles.find((r: { RoleKey: string }) => r.RoleKey === 'ORG_GUEST').RoleId;
      await aerie.request('POST', '/api/org/nostore/members/invite', { token: owner, body: { Email: 'invited@nostore.example', RoleId } });
      return aerie.request('POST', '/api/org/invitation/accept-with-register', { body: { Token: invitationToken(aerie, 'invited@nostore.example') } });
    }],
    ['API key value', 'POST /api/org/{slug}/settings/keys/api-keys', () => aerie.request('POST', '/api/org/nostore/settings/keys/api-keys', { token: owner, body: { name: 'another' } })],
    ['API key value', 'POST /api/org/{slug}/settings/keys/api-keys/{keyId}/rotate', async () => {
      const res = await aerie.request('POST', `/api/org/nostore/settings/keys/api-keys/${keyId}/rotate`, { token: owner, body: {} });
      keyValue = res.body.apiKey;
      return res;
    }],
    ['accessToken', 'POST /api/m2m/token', () => aerie.request('POST', '/api/m2m/token', { body: { orgSlug: 'nostore', apiKey: keyValue } })],
    ['WebAuthn challenge', 'POST /api/passkey/add/options', () => aerie.request('POST', '/api/passkey/add/options', { token: owner, body: {} })],
    ['WebAuthn challenge', 'POST /api/passkey/signin/options', () => aerie.request('POST', '/api/passkey/signin/options', { body: {} })],
    ['invitation token in the page', 'GET /invitation', () => aerie.request('GET', '/invitation?token=nothing')],
  ];

  it.each(rows)('%s: %s', async (_what, _route, call) => {
    const res = await call();
    // The secret was really answered (the page row: a 404 page still echoes nothing cacheable).
    if (_route !== 'GET /invitation') expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';

describe('accounts: booted alone (AERIE_PLUGINS=accounts)', () => {
  let aerie: TestAerie;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'] });
  });
  afterAll(() => aerie?.close());

  it('still answers /me with organizations: []', async () => {
    const token = await aerie.signIn('alone@example.com', 'Alone');
    const res = await aerie.request('GET', '/api/v1/users/me', { token });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ email: 'alone@example.com', displayName: 'Alone', emailVerified: true });
    expect(res.body.organizations).toEqual([]);
  });

  it('has no organization routes', async () => {
    const token = await aerie.signIn('alone2@example.com');
    const res = await aerie.request('POST', '/api/org/create', { token, body: { name: 'X', slug: 'x-co' } });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
  });
});

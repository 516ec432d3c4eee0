import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { iso } from './accounts-helpers.ts';

describe('accounts: PUT /api/v1/users/me/profile', () => {
  let aerie: TestAerie;
  let token: string;
  const email = 'profile@example.com';
  const clock = new ManualClock(new Date('2030-06-01T09:00:00.000Z'));

  const row = async () => (await aerie.sql('select display_name, updated_at from accounts.accounts where email = ?', [email]))[0];
  const put = (body: unknown, headers?: Record<string, string>) => aerie.request('PUT', '/api/v1/users/me/profile', { token, body, headers });

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'], clock });
    token = await aerie.signIn(email, 'First Name');
  });
  afterAll(() => aerie?.close());

  it('trims and saves the display name, answering {account}', async () => {
    clock.advance(60);
    const res = await put({ displayName: '  Ada Lovelace  ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      account: expect.objectContaining({ email, displayName: 'Ada Lovelace', emailVerified: true, platformAdmin: false }),
    });
    expect(Object.keys(res.body.account).sort()).toEqual(['createdAt', 'displayName', 'email', 'emailVerified', 'id', 'platformAdmin']);
    const saved = await row();
    expect(saved.display_name).toBe('Ada Lovelace');
    expect(iso(saved.updated_at)).toBe(clock.now().toISOString());
  });

  it('accepts 100 characters', async () => {
    const name = 'n'.repeat(100);
    const res = await put({ displayName: name });
    expect(res.status).toBe(200);
    expect((await row()).display_name).toBe(name);
    expect((await put({ displayName: 'Ada Lovelace' })).status).toBe(200);
  });

  it.each<[string, unknown, string]>([
    ['an empty name', { displayName: '' }, 'displayName'],
    ['a blank name', { displayName: '   ' }, 'displayName'],
    ['101 characters', { displayName: 'x'.repeat(101) }, 'displayName'],
    ['a missing name', {}, 'displayName'],
    ['null', { displayName: null }, 'displayName'],
    ['a number', { displayName: 42 }, 'displayName'],
    ['an unknown field', { displayName: 'Eve', email: 'eve@example.com' }, 'email'],
    ['a JSON array', [], 'body'],
  ])('refuses %s with 400 VALIDATION_FAILED naming the field and leaves the row unchanged', async (_label, body, field) => {
    const before = await row();
    const res = await put(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'VALIDATION_FAILED', message: expect.any(String), field });
    expect(await row()).toEqual(before);
  });

  it.each<[string, string, Record<string, string>, number, string]>([
    ['broken JSON', '{"displayName": ', {}, 400, 'INVALID_JSON'],
    ['a text/plain body', 'displayName=Eve', { 'content-type': 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('refuses %s with %i %s and leaves the row unchanged', async (_label, body, headers, status, error) => {
    const before = await row();
    const res = await put(body, headers);
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(await row()).toEqual(before);
  });

  it('answers 401 without a session and changes nothing', async () => {
    const before = await row();
    const res = await aerie.request('PUT', '/api/v1/users/me/profile', { body: { displayName: 'Mallory' } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHORIZED');
    expect(await row()).toEqual(before);
  });
});

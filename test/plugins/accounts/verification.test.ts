import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { DAY, codeRows, iso, liveCodeRow, otherCode, requestCode, sessionRows, verify } from './accounts-helpers.ts';

describe('accounts: POST /api/v1/users/verification/email', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2030-02-01T09:00:00.000Z'));

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'], clock });
  });
  afterAll(() => aerie?.close());

  it('answers the right code with 200 {sessionToken, expiresAt, created: true, account} and creates the account', async () => {
    const code = await requestCode(aerie, 'ver-new@example.com');
    const res = await verify(aerie, 'ver-new@example.com', code);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['account', 'created', 'expiresAt', 'sessionToken']);
    expect(res.body.sessionToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.expiresAt).toBe(new Date(clock.now().getTime() + 7 * DAY * 1000).toISOString());
    expect(res.body.created).toBe(true);
    expect(res.body.account).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: 'ver-new@example.com',
      displayName: null,
      emailVerified: true,
      platformAdmin: false,
      createdAt: clock.now().toISOString(),
    });
    const rows = await aerie.sql(`select id, email, email_verified_at from accounts.accounts where email = 'ver-new@example.com'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe(res.body.account.id);
    expect(iso(rows[0].email_verified_at)).toBe(clock.now().toISOString());
    expect(await sessionRows(aerie, 'ver-new@example.com')).toHaveLength(1);
    expect((await codeRows(aerie, 'ver-new@example.com'))[0].consumed_at).not.toBeNull();
  });

  it('signs an existing account in with created: false and the same id, opening a second session', async () => {
    const first = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'ver-new@example.com', code: '000000' } });
    expect(first.body.error).toBe('CODE_EXPIRED'); // nothing live yet
    const code = await requestCode(aerie, 'VER-NEW@example.com');
    const res = await verify(aerie, 'Ver-New@Example.com', code);
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(false);
    const [row] = await aerie.sql(`select id from accounts.accounts where email = 'ver-new@example.com'`);
    expect(res.body.account.id).toBe(row.id);
    expect(await aerie.sql(`select count(*)::int as n from accounts.accounts where lower(email) = 'ver-new@example.com'`)).toEqual([{ n: 1 }]);
    expect(await sessionRows(aerie, 'ver-new@example.com')).toHaveLength(2);
  });

  it('puts the displayName given at registration on the new account, trimmed', async () => {
    const code = await requestCode(aerie, 'ver-named@example.com', '  Nora Named ');
    const res = await verify(aerie, 'ver-named@example.com', code);
    expect(res.body).toMatchObject({ created: true, account: { displayName: 'Nora Named' } });
    expect(await aerie.sql(`select display_name from accounts.accounts where email = 'ver-named@example.com'`)).toEqual([{ display_name: 'Nora Named' }]);
  });

  it('ignores a displayName given when registering an existing account', async () => {
    const code = await requestCode(aerie, 'ver-named@example.com', 'Someone Else');
    const res = await verify(aerie, 'ver-named@example.com', code);
    expect(res.body).toMatchObject({ created: false, account: { displayName: 'Nora Named' } });
  });

  describe('wrong codes: 5 attempts per address from one IP address', () => {
    const email = 'ver-wrong@example.com';
    let code: string;

    beforeAll(async () => {
      await aerie.signIn(email); // an existing account, so "no session written" is measurable
      code = await requestCode(aerie, email);
    });

    it.each([
      [1, 4],
      [2, 3],
      [3, 2],
      [4, 1],
      [5, 0],
    ])('wrong attempt %i answers 400 INVALID_CODE with attemptsRemaining %i and counts it', async (attempt, remaining) => {
      const res = await verify(aerie, email, otherCode(code));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'INVALID_CODE', attemptsRemaining: remaining });
      expect(typeof res.body.message).toBe('string');
      expect(attempt).toBe(5 - remaining);
      // A wrong guess does not spend the code itself: it stays live for its owner.
      expect((await liveCodeRow(aerie, email)).consumed_at).toBeNull();
    });

    it('refuses the sixth attempt with 429 TOO_MANY_ATTEMPTS even with the right code, writing no session', async () => {
      const sessionsBefore = (await sessionRows(aerie, email)).length;
      const res = await verify(aerie, email, code);
      expect(res.status).toBe(429);
      expect(res.body.error).toBe('TOO_MANY_ATTEMPTS');
      expect(res.body.sessionToken).toBeUndefined();
      expect(await sessionRows(aerie, email)).toHaveLength(sessionsBefore);
      expect(res.body.retryAfterSeconds).toBeGreaterThan(0);
      expect(res.headers.get('retry-after')).toBe(String(res.body.retryAfterSeconds));
    });

    it('lets a new code from the same IP address work again after the lock-out', async () => {
      const fresh = await requestCode(aerie, email);
      const res = await verify(aerie, email, fresh);
      expect(res.status).toBe(200);
      expect(res.body.created).toBe(false);
    });

    it('does not create an account for a new email whose code was never guessed', async () => {
      const stranger = 'ver-stranger@example.com';
      const right = await requestCode(aerie, stranger);
      const sessionsBefore = await aerie.sql('select count(*)::int as n from accounts.sessions');
      for (let i = 0; i < 5; i++) expect((await verify(aerie, stranger, otherCode(right))).status).toBe(400);
      expect((await verify(aerie, stranger, right)).status).toBe(429);
      expect(await aerie.sql(`select count(*)::int as n from accounts.accounts where email = ?`, [stranger])).toEqual([{ n: 0 }]);
      expect(await aerie.sql('select count(*)::int as n from accounts.sessions')).toEqual(sessionsBefore);
    });
  });

  it.each([
    ['599 s', 599, 200, 'and signs in'],
    ['600 s', 600, 400, 'CODE_EXPIRED'],
    ['601 s', 601, 400, 'CODE_EXPIRED'],
  ])('a code used %s after it was sent answers %i %s', async (label, age, status, error) => {
    const email = `ver-age-${age}@example.com`;
    const code = await requestCode(aerie, email);
    clock.advance(age);
    const res = await verify(aerie, email, code);
    expect(res.status, label).toBe(status);
    if (status !== 200) {
      expect(res.body.error).toBe(error);
      expect(await aerie.sql(`select count(*)::int as n from accounts.accounts where email = ?`, [email])).toEqual([{ n: 0 }]);
    }
  });

  it('answers CODE_EXPIRED when a code is used a second time', async () => {
    const code = await requestCode(aerie, 'ver-reuse@example.com');
    expect((await verify(aerie, 'ver-reuse@example.com', code)).status).toBe(200);
    const again = await verify(aerie, 'ver-reuse@example.com', code);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('CODE_EXPIRED');
    expect(await sessionRows(aerie, 'ver-reuse@example.com')).toHaveLength(1);
  });

  it('answers CODE_EXPIRED for an email that was never sent a code', async () => {
    const res = await verify(aerie, 'ver-never@example.com', '123456');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('CODE_EXPIRED');
  });

  describe('malformed requests', () => {
    const email = 'ver-malformed@example.com';
    let code: string;

    beforeAll(async () => {
      code = await requestCode(aerie, email);
    });

    it.each([
      ['five digits', { email, code: '12345' }, 'code'],
      ['letters', { email, code: 'abcdef' }, 'code'],
      ['seven digits', { email, code: '1234567' }, 'code'],
      ['padded digits', { email, code: ' 123456' }, 'code'],
      ['a number instead of a string', { email, code: 123456 }, 'code'],
      ['missing code', { email }, 'code'],
      ['missing email', { code: '123456' }, 'email'],
      ['unknown field', { email, code: '123456', remember: true }, 'remember'],
    ])('refuses %s with 400 VALIDATION_FAILED and counts no wrong code', async (_label, body, field) => {
      const res = await aerie.request('POST', '/api/v1/users/verification/email', { body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field });
    });

    it('still has all five attempts after the refused requests', async () => {
      const res = await verify(aerie, email, otherCode(code));
      expect(res.body).toMatchObject({ error: 'INVALID_CODE', attemptsRemaining: 4 });
    });

    it('still accepts the right code afterwards', async () => {
      const res = await verify(aerie, email, code);
      expect(res.status).toBe(200);
      expect(res.body.created).toBe(true);
    });
  });
});

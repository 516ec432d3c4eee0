import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { codeRows, iso, liveCodeRow, mailCount, register, requestCode, sha256Hex, verify } from './accounts-helpers.ts';

describe('accounts: POST /api/v1/users/registration/email', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2030-01-01T09:00:00.000Z'));

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'], clock });
  });
  afterAll(() => aerie?.close());

  it('answers 202 {sent, email, expiresInSeconds: 600} and mails a 6-digit code', async () => {
    const res = await register(aerie, 'reg-new@example.com');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ sent: true, email: 'reg-new@example.com', expiresInSeconds: 600 });
    const mails = mailsTo(aerie.dataDir, 'reg-new@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatch(/^Subject: Your Aerie code: \d{6}$/m);
    expect(mails[0]).toMatch(/^X-Aerie-Template: email-code$/m);
    expect(aerie.code('reg-new@example.com')).toMatch(/^\d{6}$/);
  });

  it('stores only the SHA-256 of the code, never the code, with a 600 s expiry', async () => {
    const code = aerie.code('reg-new@example.com');
    const rows = await codeRows(aerie, 'reg-new@example.com');
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.code_hash).toBe(sha256Hex(`reg-new@example.com:${code}`));
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(row).toMatchObject({ attempts: 0, consumed_at: null });
    expect(iso(row.expires_at)).toBe(new Date(clock.now().getTime() + 600_000).toISOString());
  });

  it('lowercases the email in the answer, the mail and the stored row', async () => {
    const res = await register(aerie, 'Reg.Mixed@Example.COM');
    expect(res.status).toBe(202);
    expect(res.body.email).toBe('reg.mixed@example.com');
    expect(await codeRows(aerie, 'reg.mixed@example.com')).toHaveLength(1);
    expect(await aerie.sql(`select count(*)::int as n from accounts.email_codes where email <> lower(email)`)).toEqual([{ n: 0 }]);
    expect(mailsTo(aerie.dataDir, 'reg.mixed@example.com')[0]).toMatch(/^To: reg\.mixed@example\.com$/m);
  });

  it('answers an existing account exactly as a new one (no enumeration)', async () => {
    await aerie.signIn('reg-known@example.com');
    const known = await register(aerie, 'reg-known@example.com');
    const unknown = await register(aerie, 'reg-unknown@example.com');
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect({ ...known.body, email: '*' }).toEqual({ ...unknown.body, email: '*' });
    expect(Object.keys(known.body).sort()).toEqual(['email', 'expiresInSeconds', 'sent']);
    expect(mailCount(aerie, 'reg-known@example.com')).toBe(2);
    expect(await aerie.sql(`select count(*)::int as n from accounts.accounts where email = 'reg-unknown@example.com'`)).toEqual([{ n: 0 }]);
  });

  it('supersedes the previous code: the old one answers CODE_EXPIRED, the new one signs in', async () => {
    const first = await requestCode(aerie, 'reg-twice@example.com');
    const second = await requestCode(aerie, 'reg-twice@example.com');
    const rows = await codeRows(aerie, 'reg-twice@example.com');
    expect(rows).toHaveLength(2);
    const live = await liveCodeRow(aerie, 'reg-twice@example.com');
    expect(live.code_hash).toBe(sha256Hex(`reg-twice@example.com:${second}`));
    expect(rows.filter((r) => r.consumed_at !== null)).toHaveLength(1);
    if (first !== second) {
      const old = await verify(aerie, 'reg-twice@example.com', first);
      expect(old.status).toBe(400);
      expect(old.body.error).toBe('CODE_EXPIRED');
      expect(typeof old.body.message).toBe('string');
      // The superseded code does not spend an attempt of the live one.
      expect((await liveCodeRow(aerie, 'reg-twice@example.com')).attempts).toBe(0);
    }
    const fresh = await verify(aerie, 'reg-twice@example.com', second);
    expect(fresh.status).toBe(200);
    expect(fresh.body.created).toBe(true);
  });

  it.each([
    ['missing email', {}, 'email'],
    ['not an email', { email: 'not-an-email' }, 'email'],
    ['email too long', { email: `${'a'.repeat(250)}@x.io` }, 'email'],
    ['unknown field', { email: 'reg-bad@example.com', password: 'x' }, 'password'],
    ['empty displayName', { email: 'reg-bad@example.com', displayName: '' }, 'displayName'],
    ['blank displayName', { email: 'reg-bad@example.com', displayName: '   ' }, 'displayName'],
    ['displayName of 101 characters', { email: 'reg-bad@example.com', displayName: 'x'.repeat(101) }, 'displayName'],
  ])('refuses %s with 400 VALIDATION_FAILED naming the field, and mails nothing', async (_label, body, field) => {
    const res = await aerie.request('POST', '/api/v1/users/registration/email', { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field });
    expect(mailCount(aerie, 'reg-bad@example.com')).toBe(0);
    expect(await codeRows(aerie, 'reg-bad@example.com')).toEqual([]);
  });

  describe('rate limit: 5 codes per email per hour', () => {
    const email = 'reg-limit@example.com';

    it('refuses the 6th code within an hour with 429 RATE_LIMITED and retryAfterSeconds, sending nothing', async () => {
      for (let i = 0; i < 5; i++) {
        // Mixed case counts against the same email.
        const res = await register(aerie, i % 2 ? email.toUpperCase() : email);
        expect(res.status).toBe(202);
        clock.advance(60);
      }
      // The first code was sent 300 s ago: the window frees up 3300 s from now.
      const refused = await register(aerie, email);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: 'RATE_LIMITED', retryAfterSeconds: 3300 });
      expect(typeof refused.body.message).toBe('string');
      expect(await codeRows(aerie, email)).toHaveLength(5);
      expect(mailCount(aerie, email)).toBe(5);
    });

    it('keeps the last code live while refusing new ones', async () => {
      expect((await liveCodeRow(aerie, email)).attempts).toBe(0);
      expect((await register(aerie, email)).status).toBe(429);
    });

    it('accepts a new code once retryAfterSeconds have passed', async () => {
      clock.advance(3299);
      const still = await register(aerie, email);
      expect(still.status).toBe(429);
      expect(still.body.retryAfterSeconds).toBe(1);
      clock.advance(1);
      const again = await register(aerie, email);
      expect(again.status).toBe(202);
      expect(mailCount(aerie, email)).toBe(6);
    });
  });
});

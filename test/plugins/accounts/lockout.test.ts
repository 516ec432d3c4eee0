/**
 * The hardening issue's attacks on Aerie accounts' email codes (docs/api/accounts.md "Limits"): a
 * stranger who knows the owner's address and has up to 50 IP addresses can neither keep the owner
 * from signing in within a minute nor guess a code (at most 25 + 1 per requester wrong codes an hour).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { TestAerie, type TestResponse } from '../../helpers/harness.ts';
import { latestCode } from '../../helpers/mail.ts';
import { otherCode } from './accounts-helpers.ts';
import { CODE_MAX_ATTEMPTS, WRONG_CODES_PER_ADDRESS } from '../../../plugins/accounts/email-codes.service.ts';

describe('accounts: a stranger with up to 50 IP addresses cannot lock the owner out, nor guess a code', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2031-02-01T09:00:00.000Z'));
  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'], clock, env: { AERIE_TRUST_PROXY: '1' } });
  });
  afterAll(() => aerie?.close());

  const ask = (email: string, ip: string) => aerie.request('POST', '/api/v1/users/registration/email', { body: { email }, headers: { 'x-forwarded-for': ip } });
  const check = (email: string, code: string, ip: string) => aerie.request('POST', '/api/v1/users/verification/email', { body: { email, code }, headers: { 'x-forwarded-for': ip } });
  const ips = (n: number, net: number) => Array.from({ length: n }, (_, i) => `10.${net}.${Math.floor(i / 200)}.${(i % 200) + 1}`);
  const misses = async (email: string) => (await aerie.sql('select count(*)::int as n from accounts.code_misses where email = ?', [email]))[0].n as number;

  /** The last code each stranger's address was sent (the test reads the owner's mail only to be sure a guess is wrong). */
  const known = new Map<string, string>();

  /**
   * One round of the attack from `ip`: ask for a code, then guess wrong until refused.
   * @returns the answers to the guesses
   */
  async function attack(email: string, ip: string): Promise<TestResponse[]> {
    if ((await ask(email, ip)).status === 202) known.set(`${email}|${ip}`, latestCode(aerie.dataDir, email));
    const code = known.get(`${email}|${ip}`) ?? '000000';
    const answers: TestResponse[] = [];
    for (let i = 0; i <= CODE_MAX_ATTEMPTS; i++) {
      const res = await check(email, otherCode(code), ip);
      answers.push(res);
      if (res.body.error !== 'INVALID_CODE') break;
    }
    return answers;
  }

  /** The owner, from their own address: asks for a code and signs in with it. */
  async function ownerSignsIn(email: string, ip: string): Promise<void> {
    const asked = await ask(email, ip);
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const signedIn = await check(email, latestCode(aerie.dataDir, email), ip);
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body.account.email).toBe(email);
  }

  it('4 IP addresses × 5 code requests (once an hour-long 429): the owner still gets a code and signs in', async () => {
    const email = 'victim1@example.com';
    for (const ip of ips(4, 11)) for (let i = 0; i < 5; i++) expect((await ask(email, ip)).status).toBe(202);
    expect((await ask(email, '10.11.0.1')).status).toBe(429); // the stranger's own budget is spent
    await ownerSignsIn(email, '192.0.2.1');
    expect(await aerie.sql('select count(*)::int as n from accounts.email_codes where email = ?', [email])).toEqual([{ n: 21 }]);
  });

  it("5 IP addresses × 5 wrong codes (once 10 minutes of refusing the owner's right code): the owner signs in", async () => {
    const email = 'victim2@example.com';
    for (const ip of ips(5, 12)) {
      const answers = await attack(email, ip);
      expect(answers.slice(0, 5).map((a) => a.body.attemptsRemaining)).toEqual([4, 3, 2, 1, 0]);
    }
    expect(await misses(email)).toBe(WRONG_CODES_PER_ADDRESS);
    await ownerSignsIn(email, '192.0.2.2');
  });

  it('50 IP addresses asking and guessing without pause: the owner asks for a code and signs in within 60 seconds', async () => {
    const email = 'victim3@example.com';
    const attackers = ips(50, 13);
    const started = clock.now().getTime();
    for (const ip of attackers) await attack(email, ip); // the stranger goes first, and keeps going
    clock.advance(5);
    const asked = await ask(email, '192.0.2.3');
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const code = latestCode(aerie.dataDir, email);
    for (const ip of attackers) await attack(email, ip);
    clock.advance(20);
    const signedIn = await check(email, code, '192.0.2.3');
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(clock.now().getTime() - started).toBeLessThanOrEqual(60_000);
    expect(await aerie.sql('select count(*)::int as n from accounts.sessions s join accounts.accounts a on a.id = s.account_id where a.email = ?', [email]))
      .toEqual([{ n: 1 }]);
  });

  it('caps guessing at 25 wrong codes an hour for an address plus one per requester: 50 IP addresses get at most 75 (success below 7.5e-5)', async () => {
    const email = 'victim4@example.com';
    const attackers = ips(50, 14);
    const answers: TestResponse[] = [];
    // Each requester asks for codes and guesses for as long as it is let.
    for (const ip of attackers) {
      for (let round = 0; round < 5; round++) {
        const got = await attack(email, ip);
        answers.push(...got);
        if (got[0].body.error !== 'INVALID_CODE') break;
      }
    }
    const wrong = answers.filter((a) => a.body.error === 'INVALID_CODE').length;
    expect(wrong).toBeLessThanOrEqual(WRONG_CODES_PER_ADDRESS + attackers.length);
    expect(wrong).toBe(WRONG_CODES_PER_ADDRESS + attackers.length - 1); // the first requester spent the shared 25 itself
    expect(await misses(email)).toBe(wrong);
    expect(wrong / (1e6 - CODE_MAX_ATTEMPTS)).toBeLessThan(1e-4);

    // A requester that has guessed wrong once this hour is refused even its right code, until that miss is an hour old.
    const last = attackers.at(-1)!;
    const right = await check(email, known.get(`${email}|${last}`)!, last);
    expect(right.status).toBe(429);
    expect(right.body).toMatchObject({ error: 'TOO_MANY_ATTEMPTS', retryAfterSeconds: 3600 });
    expect(right.headers.get('retry-after')).toBe('3600');

    // An hour on, the wrong codes have left the window and every requester may try again.
    clock.advance(3600);
    const fresh = await attack(email, attackers[1]);
    expect(fresh[0].body).toMatchObject({ error: 'INVALID_CODE', attemptsRemaining: 4 });
  });

  it('the sweep schedule (accounts.sweep) deletes wrong codes and expired codes once they are a day old, never sooner', async () => {
    const count = async (table: string) => (await aerie.sql(`select count(*)::int as n from ${table}`))[0].n as number;
    const before = [await count('accounts.code_misses'), await count('accounts.email_codes')];
    expect(before.every((n) => n > 0)).toBe(true);
    await aerie.runSchedule('accounts.sweep');
    expect([await count('accounts.code_misses'), await count('accounts.email_codes')]).toEqual(before);
    clock.advance(86_400 + 600 + 1);
    await aerie.runSchedule('accounts.sweep');
    expect([await count('accounts.code_misses'), await count('accounts.email_codes')]).toEqual([0, 0]);
  });
});

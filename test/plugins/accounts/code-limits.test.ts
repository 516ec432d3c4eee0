import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { latestCode } from '../../helpers/mail.ts';
import { otherCode } from './accounts-helpers.ts';
import {
  CODE_MAX_ATTEMPTS, CODE_SENDS_PER_IP, CODES_PER_ADDRESS_PER_HOUR, CODES_PER_HOUR, VERIFICATIONS_PER_IP,
} from '../../../plugins/accounts/email-codes.service.ts';

describe('accounts: email-code limits per requester and per address (docs/api/accounts.md "Limits")', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2031-01-10T09:00:00.000Z'));
  beforeAll(async () => {
    // Requests come from addresses given in X-Forwarded-For, as behind a reverse proxy.
    aerie = await TestAerie.start({ plugins: ['accounts'], clock, env: { AERIE_TRUST_PROXY: '1' } });
  });
  afterAll(() => aerie?.close());

  const ask = (email: string, ip: string) => aerie.request('POST', '/api/v1/users/registration/email', { body: { email }, headers: { 'x-forwarded-for': ip } });
  const check = (email: string, code: string, ip: string) => aerie.request('POST', '/api/v1/users/verification/email', { body: { email, code }, headers: { 'x-forwarded-for': ip } });
  const codeOf = (email: string) => latestCode(aerie.dataDir, email);

  it(`a stranger asking for codes neither uses up the owner's ${CODES_PER_HOUR} an hour nor cancels the owner's code`, async () => {
    const email = 'owner1@example.com';
    expect((await ask(email, '10.0.0.1')).status).toBe(202);
    const ownersCode = codeOf(email);
    for (let i = 0; i < CODES_PER_HOUR; i++) expect((await ask(email, '10.6.6.6')).status).toBe(202);
    const refused = await ask(email, '10.6.6.6');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'RATE_LIMITED', retryAfterSeconds: 3600 });
    expect(refused.headers.get('retry-after')).toBe('3600');
    expect((await check(email, ownersCode, '10.0.0.1')).status).toBe(200);
    expect((await ask(email, '10.0.0.1')).status).toBe(202);
  });

  it("binds a code to the requester that asked: from anywhere else it is no code (CODE_EXPIRED, nothing counted), so nobody can guess at the owner's code or spend its tries", async () => {
    const email = 'owner2@example.com';
    await ask(email, '10.0.0.2');
    const right = codeOf(email);
    for (let i = 0; i < CODE_MAX_ATTEMPTS + 1; i++) {
      expect((await check(email, i === 0 ? right : otherCode(right), '10.6.6.7')).body.error).toBe('CODE_EXPIRED');
    }
    expect(await aerie.sql('select count(*)::int as n from accounts.code_misses where email = ?', [email])).toEqual([{ n: 0 }]);
    expect(await aerie.sql('select attempts from accounts.email_codes where email = ?', [email])).toEqual([{ attempts: 0 }]);
    expect((await check(email, right, '10.0.0.2')).status).toBe(200);
  });

  it(`a stranger's wrong codes spend only the stranger's own code (${CODE_MAX_ATTEMPTS} tries); the owner's right code still works`, async () => {
    const email = 'owner3@example.com';
    await ask(email, '10.0.0.3');
    const right = codeOf(email);
    await ask(email, '10.6.6.8');
    const strangers = codeOf(email);
    for (let i = CODE_MAX_ATTEMPTS - 1; i >= 0; i--) {
      expect((await check(email, otherCode(strangers), '10.6.6.8')).body).toMatchObject({ error: 'INVALID_CODE', attemptsRemaining: i });
    }
    const spent = await check(email, strangers, '10.6.6.8');
    expect(spent.status).toBe(429);
    expect(spent.body).toMatchObject({ error: 'TOO_MANY_ATTEMPTS', retryAfterSeconds: 600 });
    expect((await check(email, right, '10.0.0.3')).status).toBe(200);
    const misses = await aerie.sql('select requester from accounts.code_misses where email = ?', [email]);
    expect(misses).toHaveLength(CODE_MAX_ATTEMPTS);
  });

  it(`after ${CODES_PER_ADDRESS_PER_HOUR} codes for an address in the hour, only a requester with none in the hour gets one: slowed, never blocked`, async () => {
    const email = 'owner4@example.com';
    const ips = Array.from({ length: CODES_PER_ADDRESS_PER_HOUR / CODES_PER_HOUR }, (_, i) => `10.8.0.${i + 1}`);
    for (const ip of ips) for (let i = 0; i < CODES_PER_HOUR; i++) expect((await ask(email, ip)).status).toBe(202);
    expect((await ask(email, '10.8.1.1')).status).toBe(202);
    clock.advance(600);
    const again = await ask(email, '10.8.1.1');
    expect(again.status).toBe(429);
    // Allowed again when its own code leaves the hour (3000 s), or the address drops below 20 (the 2nd oldest leaves: 3000 s too).
    expect(again.body).toMatchObject({ error: 'RATE_LIMITED', retryAfterSeconds: 3000 });
    expect((await ask(email, '10.8.1.2')).status).toBe(202);
    expect(await aerie.sql('select count(*)::int as n from accounts.email_codes where email = ?', [email])).toEqual([{ n: CODES_PER_ADDRESS_PER_HOUR + 2 }]);
  });

  it('counts an IPv6 client by its /64: another address of the same /64 is the same requester', async () => {
    const email = 'owner5@example.com';
    for (let i = 1; i <= CODES_PER_HOUR; i++) expect((await ask(email, `2001:db8:5:5::${i}`)).status).toBe(202);
    expect((await ask(email, '2001:db8:5:5:ffff::9')).body.error).toBe('RATE_LIMITED');
    const code = codeOf(email);
    expect((await check(email, code, '2001:db8:5:5::77')).status).toBe(200);
    expect((await ask(email, '2001:db8:5:6::1')).status).toBe(202);
  });

  it(`one IP address asks for at most ${CODE_SENDS_PER_IP.points} codes per 10 minutes, whatever the addresses`, async () => {
    for (let i = 0; i < CODE_SENDS_PER_IP.points; i++) expect((await ask(`many${i}@example.com`, '10.9.0.1')).status).toBe(202);
    const res = await ask('one-more@example.com', '10.9.0.1');
    expect(res.status).toBe(429);
    expect(res.body.error).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await ask('one-more@example.com', '10.9.0.2')).status).toBe(202);
  });

  it(`one IP address makes at most ${VERIFICATIONS_PER_IP.points} verification requests per 10 minutes`, async () => {
    for (let i = 0; i < VERIFICATIONS_PER_IP.points; i++) expect((await check(`nobody${i}@example.com`, '123456', '10.9.1.1')).status).toBe(400);
    expect((await check('nobody@example.com', '123456', '10.9.1.1')).body.error).toBe('RATE_LIMITED');
  });
});

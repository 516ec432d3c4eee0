import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { latestCode } from '../../helpers/mail.ts';
import { otherCode } from './accounts-helpers.ts';
import {
  CODE_MAX_ATTEMPTS, CODE_SENDS_PER_IP, CODES_PER_ADDRESS_PER_HOUR, CODES_PER_HOUR, VERIFICATIONS_PER_IP, WRONG_CODES_PER_ADDRESS,
} from '../../../plugins/accounts/email-codes.service.ts';

// Requests come from addresses given in X-Forwarded-For, as behind a reverse proxy.
process.env.AERIE_TRUST_PROXY = '1';

describe('accounts: email-code limits per IP address and per address, so a stranger cannot lock the owner out', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'] });
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
    expect(refused.body).toMatchObject({ error: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfterSeconds));
    expect((await check(email, ownersCode, '10.0.0.1')).status).toBe(200);
    expect((await ask(email, '10.0.0.1')).status).toBe(202);
  });

  it(`a stranger's wrong guesses lock only the stranger out (${CODE_MAX_ATTEMPTS} per address and IP); the owner's right code still works`, async () => {
    const email = 'owner2@example.com';
    await ask(email, '10.0.0.2');
    const right = codeOf(email);
    for (let i = CODE_MAX_ATTEMPTS - 1; i >= 0; i--) {
      expect((await check(email, otherCode(right), '10.6.6.7')).body).toMatchObject({ error: 'INVALID_CODE', attemptsRemaining: i });
    }
    expect((await check(email, right, '10.6.6.7')).body.error).toBe('TOO_MANY_ATTEMPTS');
    expect((await check(email, right, '10.0.0.2')).status).toBe(200);
  });

  it(`everyone together may guess wrong ${WRONG_CODES_PER_ADDRESS} times per address in 10 minutes; then the address takes no code for the rest of the window`, async () => {
    const email = 'owner3@example.com';
    await ask(email, '10.0.0.3');
    const right = codeOf(email);
    const ips = Array.from({ length: WRONG_CODES_PER_ADDRESS / CODE_MAX_ATTEMPTS }, (_, i) => `10.7.0.${i + 1}`);
    for (const ip of ips) for (let i = 0; i < CODE_MAX_ATTEMPTS; i++) expect((await check(email, otherCode(right), ip)).status).toBe(400);
    const res = await check(email, right, '10.0.0.3');
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'TOO_MANY_ATTEMPTS', retryAfterSeconds: expect.any(Number) });
  });

  it(`all requesters together get ${CODES_PER_ADDRESS_PER_HOUR} codes an hour for one address`, async () => {
    const email = 'owner4@example.com';
    const ips = Array.from({ length: CODES_PER_ADDRESS_PER_HOUR / CODES_PER_HOUR }, (_, i) => `10.8.0.${i + 1}`);
    for (const ip of ips) for (let i = 0; i < CODES_PER_HOUR; i++) expect((await ask(email, ip)).status).toBe(202);
    expect((await ask(email, '10.8.1.1')).body.error).toBe('RATE_LIMITED');
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

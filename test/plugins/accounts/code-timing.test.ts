/**
 * Aerie accounts' code request tells nothing by its time (docs/api/accounts.md "POST
 * /api/v1/users/registration/email"): every address is mailed before the answer, an account or
 * not, so over real SMTP through a relay that adds 150 ms both answers wait for it alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { TestAerie } from '../../helpers/harness.ts';
import { latestCode } from '../../helpers/mail.ts';
import { SmtpRelay } from '../oidc/smtp-relay.ts';

const RELAY_DELAY_MS = 150;
const SAMPLES = 31;
const WARM_UP = 4;

describe('accounts: the code request answers an account and an unknown address in the same time', () => {
  const relay = new SmtpRelay(RELAY_DELAY_MS);
  let aerie: TestAerie;

  beforeAll(async () => {
    await relay.start();
    aerie = await TestAerie.start({ plugins: ['accounts'], env: { AERIE_SMTP_URL: relay.url, AERIE_TRUST_PROXY: '1' } });
    relay.outbox = join(aerie.dataDir, 'outbox');
  });
  afterAll(async () => {
    await aerie?.close();
    await relay.close();
  });

  const ask = async (email: string, ip: string) => {
    const began = performance.now();
    const res = await aerie.request('POST', '/api/v1/users/registration/email', { body: { email }, headers: { 'x-forwarded-for': ip } });
    return { res, ms: performance.now() - began };
  };

  it(`differs by noise only (median of ${SAMPLES} interleaved pairs under 15 ms), both waiting for the relay's ${RELAY_DELAY_MS} ms`, async () => {
    // Fresh addresses on both sides, as someone enumerating would probe them: accounts made beforehand (mail straight through), and addresses nobody has.
    relay.delayMs = 0;
    for (let i = 0; i < SAMPLES + WARM_UP; i++) {
      const email = `member${i}@example.com`;
      const ip = `10.70.${i}.3`;
      expect((await ask(email, ip)).res.status).toBe(202);
      const verified = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email, code: latestCode(aerie.dataDir, email) }, headers: { 'x-forwarded-for': ip } });
      expect(verified.status).toBe(200);
    }
    relay.delayMs = RELAY_DELAY_MS;
    const differences: number[] = [];
    const times = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < SAMPLES + WARM_UP; i++) {
      const pair = { known: 0, unknown: 0 };
      for (const which of i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const)) {
        const { res, ms } = await ask(which === 'known' ? `member${i}@example.com` : `stranger${i}@example.com`, `10.71.${i}.${which === 'known' ? 1 : 2}`);
        expect(res).toMatchObject({ status: 202, body: { sent: true, expiresInSeconds: 600 } });
        pair[which] = ms;
      }
      if (i < WARM_UP) continue;
      differences.push(pair.known - pair.unknown);
      times.known.push(pair.known);
      times.unknown.push(pair.unknown);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`account code request median: known ${median(times.known).toFixed(1)} ms, unknown ${median(times.unknown).toFixed(1)} ms, `
      + `median paired difference ${median(differences).toFixed(1)} ms (${SAMPLES} pairs, relay +${RELAY_DELAY_MS} ms)`);
    // No account is looked up before the mail, so the answers differ by noise only; a leak would be the relay's whole 150 ms.
    expect(Math.abs(median(differences))).toBeLessThan(15);
    expect(median(times.known)).toBeGreaterThanOrEqual(RELAY_DELAY_MS);
    expect(median(times.unknown)).toBeGreaterThanOrEqual(RELAY_DELAY_MS);
    for (let i = WARM_UP; i < SAMPLES + WARM_UP; i++) {
      expect(relay.to(`stranger${i}@example.com`)).toHaveLength(1);
      expect(relay.to(`member${i}@example.com`)).toHaveLength(2);
    }
  });
});

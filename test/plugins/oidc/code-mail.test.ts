/**
 * End users' sign-in codes go out through `core.jobs` after the answer (docs/api/signin.md "Email
 * code"), over real SMTP: a local relay that adds 150 ms to every message. The answer does not wait
 * for the relay, takes the same time for an end user's address and an unknown one, and one
 * organization's failing mail is retried on its own while another's goes out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import { TestAerie } from '../../helpers/harness.ts';
import { SEND_SIGN_IN_CODE_JOB } from '../../../plugins/endusers/sign-in-code-mail.ts';
import { createSpa, REDIRECT_URI, signInWorld, type SignInWorld } from './helpers.ts';
import { SmtpRelay } from './smtp-relay.ts';

const RELAY_DELAY_MS = 150;
/** The mail queues (`.0` … `.7`), not the one of addresses without an end user. */
const CODE_JOBS = SEND_SIGN_IN_CODE_JOB;
const SAMPLES = 61;

describe('oidc: sign-in code mail through the job queue, after the answer', () => {
  const relay = new SmtpRelay(RELAY_DELAY_MS);
  let aerie: TestAerie;
  let acme: SignInWorld;
  let globex: SignInWorld;
  const spas = new Map<SignInWorld, string>();

  beforeAll(async () => {
    relay.delayMs = 0; // the set-up's own mail goes straight through
    await relay.start();
    aerie = await TestAerie.start({ exactBaseUrl: true, env: { AERIE_SMTP_URL: relay.url, AERIE_TRUST_PROXY: '1' } });
    relay.outbox = join(aerie.dataDir, 'outbox');
    acme = await signInWorld(aerie, 'acme');
    globex = await signInWorld(aerie, 'globex');
    for (const world of [acme, globex]) spas.set(world, (await createSpa(aerie, world)).clientKey);
    await jobsIdle('endusers.%'); // the end users' invites are out before the tests count mail
    relay.delayMs = RELAY_DELAY_MS;
  });
  afterAll(async () => {
    await aerie?.close();
    await relay.close();
  });

  /** Waits until no job whose name is like `pattern` is queued, retrying or running. */
  async function jobsIdle(pattern: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await aerie.sql("select count(*)::int as n from core_jobs.job where name like ? and state in ('created', 'retry', 'active')", [pattern]))[0].n > 0) {
      if (Date.now() > deadline) throw new Error(`jobs ${pattern} still pending`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Starts an SDK sign-in from `ip`; answers its handle. */
  async function start(world: SignInWorld, ip: string): Promise<string> {
    const res = await aerie.request('POST', `/api/public/apps/${spas.get(world)}/auth/start`, {
      headers: { 'x-forwarded-for': ip },
      body: { redirectUri: REDIRECT_URI, scope: 'openid', codeChallenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), codeChallengeMethod: 'S256' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.signInId;
  }

  /** Asks for a code in the sign-in; answers the HTTP answer and how long it took (ms, as the client saw it). */
  async function askCode(world: SignInWorld, signInId: string, email: string, ip: string) {
    const began = performance.now();
    const res = await aerie.request('POST', `/api/public/apps/${spas.get(world)}/auth/email-code`, { headers: { 'x-forwarded-for': ip }, body: { signInId, email } });
    return { res, ms: performance.now() - began };
  }

  const codeIn = (data: string) => /^Subject: Your sign-in code for .*: (\d{6})$/m.exec(data)?.[1];
  const signInJobs = () => aerie.sql('select name, state, data, output from core_jobs.job where name like ? order by created_on', [`${SEND_SIGN_IN_CODE_JOB}%`]);
  const codeMails = (to: string) => relay.to(to).filter((m) => codeIn(m.data));

  it('answers before the mail server has the message: the mail leaves from the queue afterwards', async () => {
    relay.hold();
    const before = codeMails(acme.email).length;
    const signInId = await start(acme, '10.40.0.1');
    const { res } = await askCode(acme, signInId, acme.email, '10.40.0.1');
    expect(res).toMatchObject({ status: 200, body: { sent: true, expiresInSeconds: 600 } });
    expect(codeMails(acme.email)).toHaveLength(before);
    relay.release();
    await jobsIdle(CODE_JOBS);
    const mails = codeMails(acme.email);
    expect(mails).toHaveLength(before + 1);
    const code = codeIn(mails.at(-1)!.data)!;
    const verified = await aerie.request('POST', `/api/public/apps/${spas.get(acme)}/auth/email-code/verify`, {
      headers: { 'x-forwarded-for': '10.40.0.1' }, body: { signInId, email: acme.email, code },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    // The queue holds the code only sealed under the master key, never as digits.
    const jobs = await signInJobs();
    expect(jobs.at(-1)).toMatchObject({ name: 'endusers.send-sign-in-code', state: 'completed', data: { orgId: acme.org.id, endUserId: acme.endUserId, sealedCode: expect.stringMatching(/^aev1\./) } });
    expect(JSON.stringify(jobs)).not.toContain(code);
  });

  it('queues a job for an unknown address too (its own queue): it completes and mails nothing', async () => {
    const signInId = await start(acme, '10.40.0.2');
    const { res } = await askCode(acme, signInId, 'nobody@acme.test', '10.40.0.2');
    expect(res).toMatchObject({ status: 200, body: { sent: true, expiresInSeconds: 600 } });
    expect((await signInJobs()).at(-1)).toMatchObject({ name: 'endusers.send-sign-in-code.none', data: { orgId: acme.org.id, endUserId: null } });
    await jobsIdle(`${SEND_SIGN_IN_CODE_JOB}.none`);
    expect((await signInJobs()).at(-1)!.state).toBe('completed');
    expect(relay.to('nobody@acme.test')).toEqual([]);
  });

  it(`answers an end user's address and an unknown one in the same time (median difference under 5 ms over ${SAMPLES} pairs, relay +${RELAY_DELAY_MS} ms)`, async () => {
    // Fresh addresses on both sides, as someone enumerating would probe them: end users (imported, their invites out first) and addresses nobody has.
    const users = Array.from({ length: SAMPLES + 5 }, (_, i) => ({ email: `known${i}@acme.test` }));
    relay.delayMs = 0;
    const imported = await aerie.request('POST', '/api/org/acme/endusers/bulk-import', { token: acme.org.owner, body: { appGroupId: acme.groupId, users } });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    await jobsIdle('endusers.send-invites', 60_000);
    relay.delayMs = RELAY_DELAY_MS;
    const differences: number[] = [];
    const times = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < SAMPLES + 5; i++) {
      const pair = { known: 0, unknown: 0 };
      for (const which of i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const)) {
        const ip = `10.41.${i}.${which === 'known' ? 1 : 2}`;
        const signInId = await start(acme, ip);
        const { res, ms } = await askCode(acme, signInId, which === 'known' ? `known${i}@acme.test` : `nobody${i}@acme.test`, ip);
        expect(res).toMatchObject({ status: 200, body: { sent: true, expiresInSeconds: 600 } });
        pair[which] = ms;
      }
      if (i < 5) continue; // warm-up
      differences.push(pair.known - pair.unknown);
      times.known.push(pair.known);
      times.unknown.push(pair.unknown);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`code request median: known ${median(times.known).toFixed(1)} ms, unknown ${median(times.unknown).toFixed(1)} ms, `
      + `median paired difference ${median(differences).toFixed(1)} ms (${SAMPLES} pairs, relay +${RELAY_DELAY_MS} ms)`);
    // Paired (each end user's address beside an unknown one asked just before or after it), so the machine's load drifting cancels out.
    expect(Math.abs(median(differences))).toBeLessThan(5);
    await jobsIdle(CODE_JOBS, 60_000);
    for (let i = 0; i < SAMPLES + 5; i++) expect(codeMails(`known${i}@acme.test`)).toHaveLength(1);
    expect(relay.received.filter((m) => m.to.some((to) => to.startsWith('nobody')))).toEqual([]);
  });

  it("retries one organization's failing mail on its own while another organization's goes out", async () => {
    relay.refuse = (address) => address === globex.email;
    const failing = await start(globex, '10.42.0.1');
    expect((await askCode(globex, failing, globex.email, '10.42.0.1')).res.status).toBe(200);
    const working = await start(acme, '10.42.0.2');
    const acmeBefore = codeMails(acme.email).length;
    expect((await askCode(acme, working, acme.email, '10.42.0.2')).res.status).toBe(200);
    const deadline = Date.now() + 30_000;
    const globexJob = async () => (await signInJobs()).filter((j) => j.data.orgId === globex.org.id).at(-1)!;
    while (codeMails(acme.email).length === acmeBefore || (await globexJob()).state !== 'retry') {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const refused = await globexJob();
    expect(refused.output).toMatchObject({ message: expect.stringContaining('550') });
    expect(codeMails(globex.email)).toEqual([]);

    relay.refuse = () => false; // the mail server takes it again: the retry delivers
    await jobsIdle(CODE_JOBS, 40_000);
    expect((await globexJob()).state).toBe('completed');
    const code = codeIn(codeMails(globex.email).at(-1)!.data)!;
    const verified = await aerie.request('POST', `/api/public/apps/${spas.get(globex)}/auth/email-code/verify`, {
      headers: { 'x-forwarded-for': '10.42.0.1' }, body: { signInId: failing, email: globex.email, code },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  });
});

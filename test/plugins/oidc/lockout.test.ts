/**
 * The hardening issue's attacks on end users' emailed codes (docs/api/signin.md "Limits and
 * guessing"): a stranger who knows an end user's address and has up to 50 IP addresses can neither
 * keep them from signing in within a minute nor guess a code (at most 25 + 1 per requester wrong
 * codes an hour for the address in the organization).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { ManualClock } from '../../../core/clock.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { TestAerie, type TestResponse } from '../../helpers/harness.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { LOGIN_CODE_ATTEMPTS, LOGIN_CODE_MISSES_PER_ADDRESS_PER_HOUR } from '../../../plugins/oidc/login-codes.ts';
import { authorizationRequest, CookieJar, createSpa, REDIRECT_URI, relyingParty, signInMailIdle, signInWorld, type SignInWorld } from './helpers.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('oidc: a stranger with up to 50 IP addresses cannot lock an end user out, nor guess a code', () => {
  const clock = new ManualClock();
  let aerie: TestAerie;
  let world: SignInWorld;
  let spa: string;

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true, clock, env: { AERIE_TRUST_PROXY: '1' } });
    world = await signInWorld(aerie, 'acme');
    spa = (await createSpa(aerie, world)).clientKey;
  });
  afterAll(async () => aerie?.close());

  const ips = (n: number, net: number) => Array.from({ length: n }, (_, i) => `10.${net}.${Math.floor(i / 200)}.${(i % 200) + 1}`);
  const sdk = (path: string, ip: string, body: unknown) => aerie.request('POST', `/api/public/apps/${spa}/auth${path}`, { headers: { 'x-forwarded-for': ip }, body });

  /** An SDK sign-in started from `ip`: its handle and the id its codes are bound to. */
  async function startSdk(ip: string): Promise<{ signInId: string; uid: string }> {
    const res = await sdk('/start', ip, { redirectUri: REDIRECT_URI, scope: 'openid', codeChallenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), codeChallengeMethod: 'S256' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [row] = await aerie.sql('select id from oidc.sdk_sign_ins where handle_hash = ?', [sha256(res.body.signInId)]);
    return { signInId: res.body.signInId, uid: `sdk:${row.id}` };
  }

  /** The live code's hash of a sign-in for `email`, or undefined. */
  async function liveHash(uid: string, email: string): Promise<string | undefined> {
    const [row] = await aerie.sql('select code_hash from oidc.login_codes where interaction_uid = ? and email_normalized = ? and consumed_at is null order by created_at desc limit 1', [uid, email]);
    return row?.code_hash;
  }

  /** A guess that is surely wrong for the sign-in's live code (the test reads the stored hash). */
  async function wrongGuess(uid: string, email: string): Promise<string> {
    const hash = await liveHash(uid, email);
    for (let n = 0; ; n++) {
      const guess = String(n).padStart(6, '0');
      if (sha256(`${uid}:${email}:${guess}`) !== hash) return guess;
    }
  }

  /** The code mailed for this sign-in, found among every code mail to `email` (strangers' included) by its stored hash. */
  async function mailedCode(uid: string, email: string): Promise<string> {
    await signInMailIdle(aerie);
    const hash = await liveHash(uid, email);
    const codes = mailsTo(aerie.dataDir, email).map((m) => /^Subject: Your sign-in code for .*: (\d{6})$/m.exec(m)?.[1]).filter(Boolean) as string[];
    const code = codes.find((c) => sha256(`${uid}:${email}:${c}`) === hash);
    if (!code) throw new Error(`no mail holds the code of ${uid}`);
    return code;
  }

  /** The last sign-in each stranger's address was sent a code in. */
  const lastSignIn = new Map<string, { signInId: string; uid: string }>();

  /** One round of the attack from `ip`: a sign-in of its own, a code for the address, wrong guesses until refused. */
  async function attack(email: string, ip: string): Promise<TestResponse[]> {
    const signIn = await startSdk(ip);
    const asked = await sdk('/email-code', ip, { signInId: signIn.signInId, email });
    const answers: TestResponse[] = [asked];
    if (asked.status !== 200) return answers;
    lastSignIn.set(`${email}|${ip}`, signIn);
    for (let i = 0; i <= LOGIN_CODE_ATTEMPTS; i++) {
      const res = await sdk('/email-code/verify', ip, { signInId: signIn.signInId, email, code: await wrongGuess(signIn.uid, email) });
      answers.push(res);
      if (res.body.error !== 'LOGIN_CODE_INVALID') break;
    }
    return answers;
  }

  it('5 code requests from one IP address (once an hour of 429 for the address): the end user, from their own address in a new sign-in, signs in', async () => {
    const browser = async (ip: string) => {
      const jar = new CookieJar();
      const start = await jar.fetch((await authorizationRequest(await relyingParty(world))).url, { headers: { 'x-forwarded-for': ip } });
      const login = new URL(start.headers.get('location')!, aerie.url).href;
      const post = (path: string, body: unknown) => jar.fetch(`${login}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify(body) });
      return { post, uid: /aerie_op_interaction=([^;]+)/.exec(jar.header(login))![1] };
    };
    const stranger = await browser('10.60.0.1');
    for (let i = 0; i < 5; i++) expect((await stranger.post('/email-code', { email: world.email })).status).toBe(200);
    expect((await stranger.post('/email-code', { email: world.email })).status).toBe(429); // the stranger's own hour

    const owner = await browser('192.0.2.60');
    expect((await owner.post('/email-code', { email: world.email })).status).toBe(200);
    const verified = await owner.post('/email-code/verify', { email: world.email, code: await mailedCode(owner.uid, world.email) });
    expect(verified.status, await verified.clone().text()).toBe(200);
    expect((await verified.json()).redirectTo).toMatch(/\/oauth\/authorize\//);
  });

  it('50 IP addresses asking and guessing without pause: the end user asks for a code and signs in within 60 seconds', async () => {
    const email = 'target@acme.test';
    expect((await aerie.request('POST', '/api/org/acme/endusers', { token: world.org.owner, body: { email, appGroupId: world.groupId } })).status).toBe(201);
    const attackers = ips(50, 61);
    const started = clock.now().getTime();
    for (const ip of attackers) await attack(email, ip);
    clock.advance(5);
    const owner = await startSdk('192.0.2.61');
    const asked = Date.now();
    expect((await sdk('/email-code', '192.0.2.61', { signInId: owner.signInId, email })).status).toBe(200);
    for (const ip of attackers) await attack(email, ip); // and the stranger keeps going
    const code = await mailedCode(owner.uid, email);
    expect(Date.now() - asked).toBeLessThan(60_000); // the mail, behind the stranger's, is there within the minute in real time too
    clock.advance(20);
    const done = await sdk('/email-code/verify', '192.0.2.61', { signInId: owner.signInId, email, code });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ code: expect.any(String), redirectUri: REDIRECT_URI });
    expect(clock.now().getTime() - started).toBeLessThanOrEqual(60_000);
    await aerie.kernel.auditSealer.drain();
    const [endUser] = await aerie.sql('select id from endusers.end_users where email_normalized = ?', [email]);
    const signedIn = (await auditEvents(aerie, world.org, 'org.end_user.signed_in')).filter((e) => e.businessData.endUserId === endUser.id);
    expect(signedIn.map((e) => e.businessData)).toEqual([expect.objectContaining({ method: 'email_code', ip: '192.0.2.61' })]);
  });

  it('caps guessing at 25 wrong codes an hour for an address plus one per requester: 50 IP addresses get at most 75 (success below 7.5e-5)', async () => {
    const email = 'guessed@acme.test';
    expect((await aerie.request('POST', '/api/org/acme/endusers', { token: world.org.owner, body: { email, appGroupId: world.groupId } })).status).toBe(201);
    const attackers = ips(50, 62);
    const answers: TestResponse[] = [];
    for (const ip of attackers) {
      for (let round = 0; round < 5; round++) {
        const got = await attack(email, ip);
        answers.push(...got);
        if (got[1]?.body.error !== 'LOGIN_CODE_INVALID') break;
      }
    }
    const wrong = answers.filter((a) => a.body.error === 'LOGIN_CODE_INVALID').length;
    expect(wrong).toBeLessThanOrEqual(LOGIN_CODE_MISSES_PER_ADDRESS_PER_HOUR + attackers.length);
    expect(wrong).toBe(LOGIN_CODE_MISSES_PER_ADDRESS_PER_HOUR + attackers.length - 1); // the first requester spent the shared 25 itself
    const [{ n }] = await aerie.sql('select count(*)::int as n from oidc.login_code_misses where org_id = ? and email_normalized = ?', [world.org.id, email]);
    expect(n).toBe(wrong);
    expect(wrong / (1e6 - LOGIN_CODE_ATTEMPTS)).toBeLessThan(1e-4);

    // A requester that has guessed wrong this hour is refused even the right code of its own sign-in, until that miss is an hour old.
    const last = attackers.at(-1)!;
    const held = lastSignIn.get(`${email}|${last}`)!;
    const refused = await sdk('/email-code/verify', last, { signInId: held.signInId, email, code: await mailedCode(held.uid, email) });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'RATE_LIMITED', retryAfterSeconds: 3600 });

    // An hour on, the wrong codes have left the window: the budget is back.
    clock.advance(3600);
    const fresh = await attack(email, attackers[1]);
    expect(fresh[1].body).toMatchObject({ error: 'LOGIN_CODE_INVALID', attemptsRemaining: 4 });
  });

  it('the sweep schedule (oidc.sweep) deletes codes and wrong codes once they are a day old', async () => {
    const count = async (table: string) => (await aerie.sql(`select count(*)::int as n from ${table} where org_id = ?`, [world.org.id]))[0].n as number;
    const [codes, misses] = [await count('oidc.login_codes'), await count('oidc.login_code_misses')];
    expect(codes).toBeGreaterThan(0);
    expect(misses).toBeGreaterThan(0);
    await aerie.runSchedule('oidc.sweep');
    expect([await count('oidc.login_codes'), await count('oidc.login_code_misses')]).toEqual([codes, misses]);
    clock.advance(86_401);
    await aerie.runSchedule('oidc.sweep');
    expect([await count('oidc.login_codes'), await count('oidc.login_code_misses')]).toEqual([0, 0]);
  });
});

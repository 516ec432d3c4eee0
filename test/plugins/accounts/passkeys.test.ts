import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { mailsTo } from '../../helpers/mail.ts';
import type { SoftAuthenticator, AssertionOverrides } from '../../helpers/soft-authenticator.ts';
import { addPasskey, authenticatorFor } from '../../helpers/passkey-flows.ts';

const fingerprint16 = (cose: Uint8Array) => createHash('sha256').update(cose).digest('hex').slice(0, 16);

describe('accounts: passkeys, personal seal, passkey sign-in and activity log', () => {
  const clock = new ManualClock(new Date('2026-05-01T09:00:00Z'));
  let aerie: TestAerie;
  let ann: string;
  let bob: string;
  let annAuth: SoftAuthenticator;

  const passkeyMails = (email: string) => mailsTo(aerie.dataDir, email).filter((m) => /^X-Aerie-Template: passkey-/m.test(m));
  const passkeyRows = () => aerie.sql<{ credential_id: string; counter: string | number }>('select credential_id, counter from accounts.passkeys order by created_at');
  const activity = async (token: string) => (await aerie.request('GET', '/api/auth/activity-log', { token })).body.items as Array<Record<string, unknown>>;
  const me = async (token: string) => (await aerie.request('GET', '/api/v1/users/me?_t=1', { token })).body;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'], clock });
    ann = await aerie.signIn('ann@example.com', 'Ann');
    bob = await aerie.signIn('bob@example.com');
    annAuth = authenticatorFor(aerie);
  });
  afterAll(() => aerie?.close());

  describe('adding a passkey (POST /api/passkey/add/options, /api/passkey/add)', () => {
    it.each(['none', 'packed'] as const)('registers with %s attestation and mails the key id and 16-hex fingerprint', async (attestation) => {
      const before = passkeyMails('ann@example.com').length;
      // A second key on one authenticator would be refused (excludeCredentials): one device each.
      const auth = attestation === 'none' ? annAuth : authenticatorFor(aerie);
      const { credentialId, res } = await addPasskey(aerie, ann, auth, { attestation, name: `Laptop ${attestation}` });
      expect(res.status).toBe(201);
      const fp = fingerprint16(auth.publicKeyCose(credentialId));
      expect(res.body.passkey).toEqual({
        credentialId, name: `Laptop ${attestation}`, keyFingerprint: fp, publicKey: Buffer.from(auth.publicKeyCose(credentialId)).toString('base64url'), transports: ['internal', 'hybrid'], deviceType: 'multiDevice',
        backedUp: true, personalSeal: false, createdAt: clock.now().toISOString(), lastUsedAt: null,
      });
      const [row] = await aerie.sql('select * from accounts.passkeys where credential_id = ?', [credentialId]);
      expect(Buffer.from(row.public_key)).toEqual(Buffer.from(auth.publicKeyCose(credentialId)));
      expect(row.fingerprint).toBe(createHash('sha256').update(auth.publicKeyCose(credentialId)).digest('hex'));
      const mails = passkeyMails('ann@example.com');
      expect(mails).toHaveLength(before + 1);
      const mail = mails.at(-1)!;
      expect(mail).toMatch(/^Subject: Aerie: a passkey was added to your account$/m);
      expect(mail).toMatch(/^X-Aerie-Template: passkey-added$/m);
      expect(mail).toContain(`Key id:       ${credentialId}`);
      expect(mail).toContain(`Fingerprint:  ${fp}`);
      const [latest] = await activity(ann);
      expect(latest).toMatchObject({ eventType: 'seal.lifecycle.registered', keyId: credentialId, keyFingerprint: fp, method: null });
    });

    it('offers ES256 only, requires a discoverable credential and user verification, and excludes held passkeys', async () => {
      const res = await aerie.request('POST', '/api/passkey/add/options', { token: ann, body: {} });
      const options = res.body.options as PublicKeyCredentialCreationOptionsJSON;
      expect(options.pubKeyCredParams).toEqual([{ alg: -7, type: 'public-key' }]);
      expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
      expect(options.rp).toEqual({ name: 'Aerie', id: aerie.kernel.config.webauthn.rpId });
      expect(options.user.name).toBe('ann@example.com');
      expect(options.excludeCredentials!.map((c) => c.id).sort()).toEqual((await passkeyRows()).map((r) => r.credential_id).sort());
      expect(Buffer.from(options.challenge, 'base64url').length).toBeGreaterThanOrEqual(16);
    });

    type Bad = [name: string, reason: string, run: (options: PublicKeyCredentialCreationOptionsJSON, auth: SoftAuthenticator) => Promise<unknown>];
    const bad: Bad[] = [
      ['a foreign origin', 'verification_failed', async (o, a) => a.createCredential(o, { origin: 'https://evil.example' })],
      ['a foreign RP ID', 'verification_failed', async (o, a) => a.createCredential(o, { rpId: 'evil.example' })],
      ['a cleared user-present bit', 'verification_failed', async (o, a) => a.createCredential(o, { userPresent: false })],
      ['a bad packed attestation signature', 'verification_failed', async (o, a) => a.createCredential(o, { attestation: 'packed', corruptSignature: true })],
      ['an expired challenge (301 s)', 'expired', async (o, a) => { clock.advance(301); return a.createCredential(o); }],
      ["another account's challenge", 'other_account', async (_o, a) => {
        const bobs = await aerie.request('POST', '/api/passkey/add/options', { token: bob, body: {} });
        return a.createCredential(bobs.body.options);
      }],
    ];

    it.each(bad)('refuses %s with 400 PASSKEY_REGISTRATION_FAILED, storing and mailing nothing', async (_name, reason, run) => {
      const [rows, mails, log] = [(await passkeyRows()).length, passkeyMails('ann@example.com').length, (await activity(ann)).length];
      const opts = await aerie.request('POST', '/api/passkey/add/options', { token: ann, body: {} });
      const response = await run(opts.body.options, authenticatorFor(aerie));
      const res = await aerie.request('POST', '/api/passkey/add', { token: ann, body: { response } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'PASSKEY_REGISTRATION_FAILED', reason });
      expect([(await passkeyRows()).length, passkeyMails('ann@example.com').length, (await activity(ann)).length]).toEqual([rows, mails, log]);
    });

    it('refuses a reused registration challenge', async () => {
      const opts = await aerie.request('POST', '/api/passkey/add/options', { token: ann, body: {} });
      const auth = authenticatorFor(aerie);
      const first = await aerie.request('POST', '/api/passkey/add', { token: ann, body: { response: auth.createCredential(opts.body.options) } });
      expect(first.status).toBe(201);
      const again = await aerie.request('POST', '/api/passkey/add', { token: ann, body: { response: auth.createCredential(opts.body.options) } });
      expect(again.body).toMatchObject({ error: 'PASSKEY_REGISTRATION_FAILED', reason: 'replayed' });
    });
  });

  describe('personal seal and /me', () => {
    it('binds a passkey as the personal seal without a security mail; /me shows credential ids and the seal', async () => {
      const { credentialId } = await addPasskey(aerie, bob, authenticatorFor(aerie));
      const mails = passkeyMails('bob@example.com').length;
      const before = await me(bob);
      expect(before.credentialIds).toEqual([credentialId]);
      expect(before.personalSeal).toBeNull();
      const res = await aerie.request('POST', '/api/v1/seals', { token: bob, body: { credentialId } });
      expect(res.status).toBe(200);
      expect(res.body.personalSeal).toEqual({ credentialId, keyFingerprint: expect.stringMatching(/^[0-9a-f]{16}$/), boundAt: clock.now().toISOString() });
      expect(passkeyMails('bob@example.com')).toHaveLength(mails);
      expect(mailsTo(aerie.dataDir, 'bob@example.com').length).toBe(mails + 1); // the sign-in code mail only
      const after = await aerie.request('GET', '/api/v1/users/me', { token: bob });
      expect(after.body).toMatchObject({ credentialIds: [credentialId], personalSeal: res.body.personalSeal });
      const list = await aerie.request('GET', '/api/passkey/list', { token: bob });
      expect(list.body.passkeys.map((p: { personalSeal: boolean }) => p.personalSeal)).toEqual([true]);
    });

    it("refuses to bind another account's passkey or an unknown one (404 PASSKEY_NOT_FOUND)", async () => {
      const annKey = (await passkeyRows())[0].credential_id;
      for (const credentialId of [annKey, 'AAAA']) {
        const res = await aerie.request('POST', '/api/v1/seals', { token: bob, body: { credentialId } });
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('PASSKEY_NOT_FOUND');
      }
    });
  });

  describe('removing a passkey (DELETE /api/passkey/{credentialId})', () => {
    it('removes it, unbinds the seal it carried, logs seal.lifecycle.revoked and mails a notice', async () => {
      const carol = await aerie.signIn('carol@example.com');
      const auth = authenticatorFor(aerie);
      const { credentialId } = await addPasskey(aerie, carol, auth);
      await aerie.request('POST', '/api/v1/seals', { token: carol, body: { credentialId } });
      const res = await aerie.request('DELETE', `/api/passkey/${credentialId}`, { token: carol });
      expect(res.status).toBe(204);
      const mine = await me(carol);
      expect(mine).toMatchObject({ credentialIds: [], personalSeal: null });
      const mail = passkeyMails('carol@example.com').at(-1)!;
      expect(mail).toMatch(/^X-Aerie-Template: passkey-removed$/m);
      expect(mail).toContain(`Key id:       ${credentialId}`);
      expect(mail).toContain(fingerprint16(auth.publicKeyCose(credentialId)));
      const log = await activity(carol);
      expect(log.map((r) => r.eventType)).toEqual(['seal.lifecycle.revoked', 'seal.lifecycle.registered', 'auth.login']);
      expect(log[0]).toMatchObject({ keyId: credentialId, keyFingerprint: fingerprint16(auth.publicKeyCose(credentialId)) });
    });

    it("answers 404 for another account's passkey and changes nothing", async () => {
      const [before, annKey] = [(await passkeyRows()).length, (await passkeyRows())[0].credential_id];
      const res = await aerie.request('DELETE', `/api/passkey/${annKey}`, { token: bob });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('PASSKEY_NOT_FOUND');
      expect((await passkeyRows()).length).toBe(before);
    });
  });

  describe('passkey sign-in (POST /api/passkey/signin/options, /api/passkey/signin)', () => {
    let dan: string;
    let danAuth: SoftAuthenticator;
    let danKey: string;
    const sessionsOfDan = async () => (await aerie.sql("select count(*)::int as n from accounts.sessions s join accounts.accounts a on a.id = s.account_id where a.email = 'dan@example.com'"))[0].n;
    const counter = async () => Number((await aerie.sql('select counter from accounts.passkeys where credential_id = ?', [danKey]))[0].counter);
    const signIn = async (overrides: AssertionOverrides = {}, reuse?: PublicKeyCredentialRequestOptionsJSON) => {
      const options = reuse ?? (await aerie.request('POST', '/api/passkey/signin/options', { body: {} })).body.options;
      const response = danAuth.getAssertion(options, overrides);
      return { options, response, res: await aerie.request('POST', '/api/passkey/signin', { body: { response } }) };
    };

    beforeAll(async () => {
      dan = await aerie.signIn('dan@example.com');
      danAuth = authenticatorFor(aerie);
      danKey = (await addPasskey(aerie, dan, danAuth)).credentialId;
    });

    it('opens a session with a discoverable credential and logs a passkey login row', async () => {
      const { options, res } = await signIn();
      expect(options.allowCredentials ?? []).toEqual([]);
      expect(options.userVerification).toBe('required');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ sessionToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), account: { email: 'dan@example.com' } });
      expect((await me(res.body.sessionToken)).account.email).toBe('dan@example.com');
      const log = await activity(dan);
      expect(log[0]).toMatchObject({ eventType: 'auth.login', method: 'passkey', keyId: danKey, keyFingerprint: fingerprint16(danAuth.publicKeyCose(danKey)) });
      const emailLogin = log.find((r) => r.method === 'email_code')!;
      expect(emailLogin).toMatchObject({ eventType: 'auth.login', keyId: null, keyFingerprint: null });
      for (const row of log) expect(Object.keys(row)).toEqual(expect.arrayContaining(['keyId', 'keyFingerprint', 'eventType', 'occurredAt']));
      expect(await counter()).toBe(danAuth.signCount(danKey));
    });

    const failures: Array<[string, () => Promise<{ res: { status: number; body: any } }>]> = [
      ['a bad signature', () => signIn({ corruptSignature: true })],
      ['a cleared user-present bit', () => signIn({ userPresent: false })],
      ['a foreign origin', () => signIn({ origin: 'https://evil.example' })],
      ['a foreign RP ID', () => signIn({ rpId: 'evil.example' })],
      ['a non-increasing counter', async () => signIn({ signCount: await counter() })],
      ['a challenge never issued', () => signIn({ challenge: 'bm90LWlzc3VlZC1oZXJl' })],
    ];

    it.each(failures)('refuses %s with 401 PASSKEY_SIGNIN_FAILED and changes nothing', async (_name, run) => {
      const [sessions, count] = [await sessionsOfDan(), await counter()];
      const { res } = await run();
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('PASSKEY_SIGNIN_FAILED');
      expect([await sessionsOfDan(), await counter()]).toEqual([sessions, count]);
      danAuth.getAssertion({ challenge: 'AA', rpId: danAuth.rpId }, { signCount: count });
    });

    it('refuses a reused sign-in challenge', async () => {
      const first = await signIn();
      expect(first.res.status).toBe(200);
      const [sessions, count] = [await sessionsOfDan(), await counter()];
      const { res } = await signIn({}, first.options);
      expect(res.body.error).toBe('PASSKEY_SIGNIN_FAILED');
      expect([await sessionsOfDan(), await counter()]).toEqual([sessions, count]);
    });
  });

  it('requires a signed-in caller on every passkey route', async () => {
    for (const [method, path] of [['POST', '/api/passkey/add/options'], ['POST', '/api/passkey/add'], ['GET', '/api/passkey/list'], ['DELETE', '/api/passkey/AAAA'],
      ['POST', '/api/v1/seals'], ['POST', '/api/passkey/stepup/options'], ['GET', '/api/auth/activity-log']] as const) {
      const res = await aerie.request(method, path, { body: method === 'POST' ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });
});

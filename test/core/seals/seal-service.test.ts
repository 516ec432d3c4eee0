import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { fileURLToPath } from 'node:url';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { bindingChallengeBase64url, canonicalLine } from '../../../core/seals/binding.ts';
import { verifySealProof, type SealProof } from '../../../core/seals/seal-proof.ts';
import { registerSealCommands } from '../../../core/seals/verify-proof.command.ts';
import type { SoftAuthenticator, AssertionOverrides } from '../../helpers/soft-authenticator.ts';
import { addPasskey, authenticatorFor, signStepUp } from '../../helpers/passkey-flows.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/seal-demo', import.meta.url));
const SIGN = (thing: string) => `/api/seal-demo/things/${thing}/sign`;

describe('core.seals: step-up seals verified by the kernel before the handler', () => {
  const clock = new ManualClock(new Date('2026-05-01T09:00:00Z'));
  let aerie: TestAerie;
  let ann: string;
  let bob: string;
  let annAuth: SoftAuthenticator;
  let bobAuth: SoftAuthenticator;
  let annKey: string;
  let bobKey: string;

  const stepUp = (subject = 't1|sign', overrides: AssertionOverrides = {}, purpose = 'demo.sealed', token = ann, auth = annAuth) =>
    signStepUp(aerie, token, auth, { purpose, subject }, overrides);
  const send = (assertion: unknown, thing = 't1', token = ann) =>
    aerie.request('POST', SIGN(thing), { token, body: assertion === undefined ? {} : { stepUpAssertion: assertion } });
  const counterOf = async (credentialId: string) =>
    Number((await aerie.sql('select counter from accounts.passkeys where credential_id = ?', [credentialId]))[0].counter);
  const challengeRow = async (challenge: string) => (await aerie.sql('select * from core.seal_challenges where challenge = ?', [challenge]))[0];
  const sealedCount = async () => (await aerie.sql('select count(*)::int as n from seal_demo.sealed_actions'))[0].n as number;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'seal-demo'], env: { AERIE_PLUGIN_PATHS: fixtures }, clock });
    ann = await aerie.signIn('ann@example.com');
    bob = await aerie.signIn('bob@example.com');
    annAuth = authenticatorFor(aerie);
    bobAuth = authenticatorFor(aerie);
    annKey = (await addPasskey(aerie, ann, annAuth)).credentialId;
    bobKey = (await addPasskey(aerie, bob, bobAuth)).credentialId;
  });
  afterAll(() => aerie?.close());

  it('issues a single-use challenge = SHA-256(canonical line), bound to account, purpose and subject, for 5 minutes', async () => {
    const res = await aerie.request('POST', '/api/passkey/stepup/options', { token: ann, body: { purpose: 'demo.sealed', subject: 't1|sign' } });
    expect(res.status).toBe(200);
    const { hasPasskey, options, binding } = res.body;
    expect(hasPasskey).toBe(true);
    expect(binding).toEqual({ version: 'aerie-stepup-v1', nonce: expect.stringMatching(/^[0-9a-f]{64}$/), purpose: 'demo.sealed', subject: 't1|sign', fields: [] });
    expect(options.challenge).toBe(bindingChallengeBase64url(binding));
    expect(Buffer.from(options.challenge, 'base64url')).toHaveLength(32);
    expect(options).toMatchObject({ rpId: aerie.kernel.config.webauthn.rpId, userVerification: 'required', allowCredentials: [{ id: annKey, type: 'public-key' }] });
    const row = await challengeRow(options.challenge);
    expect(row).toMatchObject({ purpose: 'demo.sealed', subject: 't1|sign', canonical: canonicalLine(binding), consumed_at: null });
    expect(row.account_id).toBe((await aerie.sql("select id from accounts.accounts where email = 'ann@example.com'"))[0].id);
    expect(new Date(row.expires_at).getTime() - clock.now().getTime()).toBe(300_000);
  });

  it('answers hasPasskey false and no options for an account without passkeys', async () => {
    const cid = await aerie.signIn('cid@example.com');
    const res = await aerie.request('POST', '/api/passkey/stepup/options', { token: cid, body: { purpose: 'demo.sealed', subject: 't1|sign' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ hasPasskey: false, options: null });
    expect((await send(undefined, 't1', cid)).body.error).toBe('STEPUP_REQUIRED');
  });

  it('accepts a valid seal once: handler sees it, audit scope carries _humanSeal, counter advances, challenge consumed', async () => {
    const before = await counterOf(annKey);
    const { assertion, options } = await stepUp();
    const res = await send(assertion);
    expect(res.status).toBe(200);
    const annId = (await aerie.sql("select id from accounts.accounts where email = 'ann@example.com'"))[0].id;
    expect(res.body.seal).toEqual({ credentialId: annKey, userId: annId });
    expect(res.body.humanSeal).toEqual({ credentialId: annKey, userId: annId });
    expect(await counterOf(annKey)).toBe(before + 1);
    expect((await challengeRow(options.challenge)).consumed_at).not.toBeNull();
  });

  it('lets a third party verify the proof with only the public key; one flipped byte of canonical fails it', async () => {
    const { assertion } = await stepUp('proof|sign', {}, 'demo.sealed');
    const res = await send(assertion, 'proof');
    expect(res.status).toBe(200);
    const proof = res.body.proof as SealProof;
    expect(proof).toMatchObject({ v: 'aerie-stepup-proof-v1', credentialId: annKey });
    expect(proof.canonical).toMatch(/^aerie-stepup-v1\|nonce=64:[0-9a-f]{64}\|purpose=11:demo\.sealed\|subject=10:proof\|sign$/);
    const [stored] = await aerie.sql('select public_key from accounts.passkeys where credential_id = ?', [annKey]);
    const cose = new Uint8Array(stored.public_key);
    const { rpId, origins } = aerie.kernel.config.webauthn;
    for (const key of [cose, annAuth.publicKeyJwk(annKey), annAuth.publicKeyPem(annKey)]) {
      expect(verifySealProof(proof, key, { rpId, origin: origins[0] }).ok).toBe(true);
    }
    const bytes = Buffer.from(proof.canonical, 'utf8');
    bytes[bytes.length - 1] ^= 0x01;
    const flipped = verifySealProof({ ...proof, canonical: bytes.toString('utf8') }, cose);
    expect(flipped).toMatchObject({ ok: false, checks: { challengeMatches: false } });
    expect(verifySealProof(proof, bobAuth.publicKeyJwk(bobKey)).checks.signatureValid).toBe(false);
    const [recorded] = await aerie.sql("select proof from seal_demo.sealed_actions where subject = 'proof|sign'");
    expect(recorded.proof).toEqual(proof);
  });

  type Case = [name: string, code: 'STEPUP_REQUIRED' | 'STEPUP_FAILED', reason: string | undefined, make: () => Promise<{ assertion: unknown; challenge?: string; thing?: string }>];
  const cases: Case[] = [
    ['no assertion', 'STEPUP_REQUIRED', undefined, async () => ({ assertion: undefined })],
    ['an empty assertion', 'STEPUP_REQUIRED', undefined, async () => ({ assertion: '' })],
    ['text that is not JSON', 'STEPUP_FAILED', 'bad_assertion', async () => ({ assertion: 'not json' })],
    ['a challenge never issued', 'STEPUP_FAILED', 'unknown_challenge', async () => {
      const { options } = await stepUp();
      return { assertion: annAuth.getAssertion(options, { challenge: randomBytes(32).toString('base64url') }) };
    }],
    ["another account's seal (bob's challenge and passkey)", 'STEPUP_FAILED', 'other_account', async () => {
      const { assertion, options } = await stepUp('t1|sign', {}, 'demo.sealed', bob, bobAuth);
      return { assertion, challenge: options.challenge };
    }],
    ["another account's passkey over this account's challenge", 'STEPUP_FAILED', 'unknown_credential', async () => {
      const { options } = await stepUp();
      return { assertion: bobAuth.getAssertion(options, { credentialId: bobKey }), challenge: options.challenge };
    }],
    ['a seal for another purpose', 'STEPUP_FAILED', 'other_purpose', async () => {
      const { assertion, options } = await stepUp('t1|sign', {}, 'demo.other');
      return { assertion, challenge: options.challenge };
    }],
    ['a seal for another subject', 'STEPUP_FAILED', 'other_subject', async () => {
      const { assertion, options } = await stepUp('t2|sign');
      return { assertion, challenge: options.challenge };
    }],
    ['an expired seal (301 s later)', 'STEPUP_FAILED', 'expired', async () => {
      const { assertion, options } = await stepUp();
      clock.advance(301);
      return { assertion, challenge: options.challenge };
    }],
    ['a bad signature', 'STEPUP_FAILED', 'verification_failed', async () => {
      const { assertion, options } = await stepUp('t1|sign', { corruptSignature: true });
      return { assertion, challenge: options.challenge };
    }],
    ['a cleared user-present bit', 'STEPUP_FAILED', 'verification_failed', async () => {
      const { assertion, options } = await stepUp('t1|sign', { userPresent: false });
      return { assertion, challenge: options.challenge };
    }],
    ['a cleared user-verified bit', 'STEPUP_FAILED', 'verification_failed', async () => {
      const { assertion, options } = await stepUp('t1|sign', { userVerified: false });
      return { assertion, challenge: options.challenge };
    }],
    ['a foreign origin', 'STEPUP_FAILED', 'verification_failed', async () => {
      const { assertion, options } = await stepUp('t1|sign', { origin: 'https://evil.example' });
      return { assertion, challenge: options.challenge };
    }],
    ['a foreign RP ID', 'STEPUP_FAILED', 'verification_failed', async () => {
      const { assertion, options } = await stepUp('t1|sign', { rpId: 'evil.example' });
      return { assertion, challenge: options.challenge };
    }],
    ['a registration-type clientDataJSON', 'STEPUP_FAILED', 'verification_failed', async () => {
      const { assertion, options } = await stepUp('t1|sign', { type: 'webauthn.create' });
      return { assertion, challenge: options.challenge };
    }],
    ['a counter that did not increase', 'STEPUP_FAILED', 'verification_failed', async () => {
      const { assertion, options } = await stepUp('t1|sign', { signCount: await counterOf(annKey) });
      return { assertion, challenge: options.challenge };
    }],
    ['a counter that went backwards', 'STEPUP_FAILED', 'verification_failed', async () => {
      const { assertion, options } = await stepUp('t1|sign', { signCount: 1 });
      return { assertion, challenge: options.challenge };
    }],
  ];

  it('verifies with `aerie seal verify` given only the public key from GET /api/passkey/list', async () => {
    const { assertion } = await stepUp('cli|sign');
    const proof = (await send(assertion, 'cli')).body.proof as SealProof;
    const list = await aerie.request('GET', '/api/passkey/list', { token: ann });
    const publicKey = list.body.passkeys.find((p: { credentialId: string }) => p.credentialId === annKey).publicKey as string;
    const keyFile = join(aerie.dataDir, 'key.cose.txt');
    writeFileSync(keyFile, publicKey);
    const run = async (proofValue: SealProof) => {
      const proofFile = join(aerie.dataDir, 'proof.json');
      writeFileSync(proofFile, JSON.stringify(proofValue));
      let out = '';
      const program = new Command('aerie').exitOverride();
      registerSealCommands(program, { out: (t) => { out += t; }, err: (t) => { out += t; } });
      await program.parseAsync(['seal', 'verify', proofFile, '--public-key', keyFile, '--rp-id', aerie.kernel.config.webauthn.rpId], { from: 'user' });
      return { out, exitCode: process.exitCode ?? 0 };
    };
    expect(await run(proof)).toMatchObject({ exitCode: 0, out: expect.stringContaining('VALID') });
    process.exitCode = undefined;
    const flipped = Buffer.from(proof.canonical, 'utf8');
    flipped[flipped.length - 3] ^= 0x01;
    expect((await run({ ...proof, canonical: flipped.toString('utf8') })).exitCode).toBe(1);
  });
  afterEach(() => { process.exitCode = undefined; });

  it.each(cases)('refuses %s with 401 %s and changes nothing', async (_name, code, reason, make) => {
    const [annCounter, bobCounter, sealed] = [await counterOf(annKey), await counterOf(bobKey), await sealedCount()];
    const { assertion, challenge, thing } = await make();
    const res = await send(assertion, thing);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe(code);
    if (reason) expect(res.body.reason).toBe(reason);
    expect([await counterOf(annKey), await counterOf(bobKey), await sealedCount()]).toEqual([annCounter, bobCounter, sealed]);
    if (challenge) expect((await challengeRow(challenge)).consumed_at).toBeNull();
    // Counter cases make the authenticator keep a forced counter: resync it with the server's.
    annAuth.getAssertion({ challenge: 'AA', rpId: annAuth.rpId }, { signCount: await counterOf(annKey) });
  });

  it('refuses a replayed seal (and an assertion object sent as JSON text works the same)', async () => {
    const { assertion, options } = await stepUp();
    expect((await send(JSON.stringify(assertion))).status).toBe(200);
    const counter = await counterOf(annKey);
    const consumedAt = (await challengeRow(options.challenge)).consumed_at;
    const replay = await send(assertion);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ error: 'STEPUP_FAILED', reason: 'replayed' });
    expect(await counterOf(annKey)).toBe(counter);
    expect((await challengeRow(options.challenge)).consumed_at).toEqual(consumedAt);
  });

  it('lets exactly one of two racing requests with the same seal through', async () => {
    const { assertion } = await stepUp();
    const sealed = await sealedCount();
    const results = await Promise.all([send(assertion), send(assertion)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    expect(await sealedCount()).toBe(sealed + 1);
  });

  it('refuses a seal from another session of another account even when it verified for that account', async () => {
    const { assertion } = await stepUp('t1|sign', {}, 'demo.sealed', bob, bobAuth);
    const res = await send(assertion, 't1', ann);
    expect(res.body).toMatchObject({ error: 'STEPUP_FAILED', reason: 'other_account' });
    expect((await send(assertion, 't1', bob)).status).toBe(200);
  });

  describe('content-bound purposes (docs/seals.md)', () => {
    let doc: { id: string; title: string; body: string };
    const approve = (assertion: AuthenticationResponseJSON, body: Record<string, unknown> = {}, id = doc.id) =>
      aerie.request('POST', `/api/seal-demo/docs/${id}/approve`, { token: ann, body: { ...body, stepUpAssertion: assertion } });
    const contentStepUp = (inputs?: Array<{ key: string; value: string }>, id = doc.id) =>
      signStepUp(aerie, ann, annAuth, { purpose: 'demo.content', subject: `${id}|approve`, ...(inputs ? { inputs } : {}) });

    beforeAll(async () => {
      doc = (await aerie.request('POST', '/api/seal-demo/docs', { token: ann, body: { title: 'Board minutes ✓', body: 'Approved unanimously.' } })).body;
    });

    it('binds fields rebuilt from the database and trimmed allowed inputs; drops other inputs', async () => {
      const { binding, options } = await contentStepUp([{ key: 'input.reason', value: '  Looks right \n' }, { key: 'input.other', value: 'x' }]);
      expect(binding.fields).toEqual([
        { key: 'title', value: 'Board minutes ✓' },
        { key: 'body.sha256', value: createHash('sha256').update('Approved unanimously.').digest('hex') },
        { key: 'input.reason', value: 'Looks right' },
      ]);
      expect(options.challenge).toBe(bindingChallengeBase64url(binding));
      expect(canonicalLine(binding)).toContain('|title=17:Board minutes ✓|');
    });

    it('accepts the action when content and reason still match', async () => {
      const { assertion, binding } = await contentStepUp([{ key: 'input.reason', value: ' Looks right ' }]);
      const res = await approve(assertion, { reason: 'Looks right' });
      expect(res.status).toBe(200);
      expect(res.body.proof.canonical).toBe(canonicalLine(binding));
    });

    it('answers 403 seal_binding_mismatch when the document changed after signing, and changes nothing', async () => {
      const { assertion, options } = await contentStepUp();
      await aerie.request('PUT', `/api/seal-demo/docs/${doc.id}`, { token: ann, body: { title: doc.title, body: 'Approved, with one dissent.' } });
      const res = await approve(assertion);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: ['body.sha256'] });
      expect((await challengeRow(options.challenge)).consumed_at).toBeNull();
    });

    it('answers 403 seal_binding_mismatch when the reason sent differs from the one signed', async () => {
      const { assertion } = await contentStepUp([{ key: 'input.reason', value: 'Fine' }]);
      const res = await approve(assertion, { reason: 'Not fine' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'seal_binding_mismatch', mismatchedKeys: ['input.reason'] });
      const none = await contentStepUp();
      expect((await approve(none.assertion, { reason: '   ' })).status).toBe(200);
    });

    it('refuses a seal for another document with STEPUP_FAILED', async () => {
      const other = (await aerie.request('POST', '/api/seal-demo/docs', { token: ann, body: { title: 'Other', body: '' } })).body;
      const { assertion } = await contentStepUp(undefined, other.id);
      const res = await approve(assertion);
      expect(res.body).toMatchObject({ error: 'STEPUP_FAILED', reason: 'other_subject' });
    });

    it('validates step-up requests: bad purpose 400, unknown document 404', async () => {
      const bad = await aerie.request('POST', '/api/passkey/stepup/options', { token: ann, body: { purpose: 'Not A Purpose', subject: 'x' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('invalid_purpose');
      const missing = await aerie.request('POST', '/api/passkey/stepup/options', {
        token: ann, body: { purpose: 'demo.content', subject: '00000000-0000-4000-8000-000000000000|approve' },
      });
      expect(missing.status).toBe(404);
      const dup = await aerie.request('POST', '/api/passkey/stepup/options', {
        token: ann, body: { purpose: 'demo.content', subject: `${doc.id}|approve`, inputs: [{ key: 'input.reason', value: 'a' }, { key: 'input.reason', value: 'b' }] },
      });
      expect(dup.body.error).toBe('duplicate_input');
    });
  });
});

import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { bindingChallenge, bindingChallengeBase64url, buildBinding, canonicalLine, SealBindingError, type SealBinding } from '../../../core/seals/binding.ts';
import { importPublicKey, makeSealProof, verifySealProof, type SealProof } from '../../../core/seals/seal-proof.ts';
import { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';

const ORIGIN = 'https://aerie.test';
const RP_ID = 'aerie.test';

let auth: SoftAuthenticator;
let credentialId: string;
let binding: SealBinding;
let proof: SealProof;

/** The server side of a content-bound stamp: options carry SHA-256(canonical line) as the challenge. */
beforeAll(async () => {
  auth = new SoftAuthenticator({ origin: ORIGIN, rpId: RP_ID });
  const regOptions = await generateRegistrationOptions({ rpName: 'Aerie', rpID: RP_ID, userName: 'owner@acme.test' });
  const reg = await verifyRegistrationResponse({
    response: auth.createCredential(regOptions, { attestation: 'packed' }), expectedChallenge: regOptions.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID,
  });
  const credential = reg.registrationInfo!.credential;
  credentialId = credential.id;

  binding = buildBinding({
    purpose: 'approval.stamp',
    subject: 'inst-9|approve|reject',
    fields: [{ key: 'org', value: 'acme' }, { key: 'title', value: '이사회 승인' }, { key: 'decision', value: 'reject' }, { key: 'input.reason', value: 'Zürich ✓' }],
  });
  const options = await generateAuthenticationOptions({ rpID: RP_ID, challenge: bindingChallenge(binding), allowCredentials: [{ id: credentialId }] });
  expect(options.challenge).toBe(bindingChallengeBase64url(binding));
  const response = auth.getAssertion(options);
  const checked = await verifyAuthenticationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential });
  expect(checked.verified).toBe(true);
  proof = makeSealProof(binding, JSON.stringify(response));
});

/** Flips one bit of byte `index` of a base64url field. */
function flipB64url(value: string, index: number): string {
  const bytes = Buffer.from(value, 'base64url');
  bytes[index] ^= 0x01;
  return bytes.toString('base64url');
}

describe('SealProof (docs/seals.md)', () => {
  it('carries the canonical line and the assertion parts', () => {
    expect(proof).toMatchObject({ v: 'aerie-stepup-proof-v1', canonical: canonicalLine(binding), credentialId });
    expect(Object.keys(proof)).toEqual(['v', 'canonical', 'credentialId', 'authenticatorData', 'clientDataJSON', 'signature']);
  });

  it('refuses to record an assertion that signed something else', () => {
    const other = buildBinding({ ...binding, fields: [{ key: 'decision', value: 'approve' }] });
    const response = auth.getAssertion({ challenge: bindingChallengeBase64url(binding), rpId: RP_ID });
    expect(() => makeSealProof(other, response)).toThrow(expect.objectContaining({ code: 'seal_binding_mismatch', status: 403 }));
    expect(() => makeSealProof(binding, response)).not.toThrow();
    expect(() => makeSealProof(binding, { ...response, response: { ...response.response, clientDataJSON: 'bm9wZQ' } })).toThrow(SealBindingError);
  });

  it.each([
    ['JWK', () => auth.publicKeyJwk(credentialId)],
    ['JWK JSON text', () => JSON.stringify(auth.publicKeyJwk(credentialId))],
    ['SPKI PEM', () => auth.publicKeyPem(credentialId)],
    ['COSE_Key bytes', () => auth.publicKeyCose(credentialId)],
  ])('verifies for a third party given only the public key as %s', (_name, key) => {
    const result = verifySealProof(proof, key());
    expect(result).toMatchObject({
      ok: true,
      checks: { wellFormed: true, challengeMatches: true, typeIsGet: true, userPresent: true, signatureValid: true },
      origin: ORIGIN, userVerified: true,
    });
    expect(result.signCount).toBeGreaterThan(0);
    expect(result.reason).toBeUndefined();
  });

  it('is reproducible with bare node:crypto, as docs/seals.md shows', () => {
    const clientData = Buffer.from(proof.clientDataJSON, 'base64url');
    const challenge = createHash('sha256').update(proof.canonical, 'utf8').digest('base64url');
    expect(JSON.parse(clientData.toString()).challenge).toBe(challenge);
    const signed = Buffer.concat([Buffer.from(proof.authenticatorData, 'base64url'), createHash('sha256').update(clientData).digest()]);
    const key = createPublicKey({ key: auth.publicKeyJwk(credentialId), format: 'jwk' });
    expect(verify('sha256', signed, key, Buffer.from(proof.signature, 'base64url'))).toBe(true);
  });

  it('fails when one byte of canonical is flipped', () => {
    const bytes = Buffer.from(proof.canonical, 'utf8');
    bytes[bytes.length - 1] ^= 0x01; // last byte of ✓ (E2 9C 93 → E2 9C 92 = ✒)
    const tampered = { ...proof, canonical: bytes.toString('utf8') };
    expect(tampered.canonical).not.toBe(proof.canonical);
    const result = verifySealProof(tampered, auth.publicKeyJwk(credentialId));
    expect(result.ok).toBe(false);
    expect(result.checks.challengeMatches).toBe(false);
    expect(result.checks.signatureValid).toBe(true); // the signature is intact; it just signed another line
    expect(result.reason).toMatch(/SHA-256\(canonical\)/);
  });

  it.each<[string, (p: SealProof) => SealProof, string, RegExp]>([
    ['a flipped signature byte', (p) => ({ ...p, signature: flipB64url(p.signature, Buffer.from(p.signature, 'base64url').length - 1) }), 'signatureValid', /signature/],
    ['a flipped authenticatorData counter byte', (p) => ({ ...p, authenticatorData: flipB64url(p.authenticatorData, 36) }), 'signatureValid', /signature/],
    ['a cleared UP flag', (p) => ({ ...p, authenticatorData: flipB64url(p.authenticatorData, 32) }), 'userPresent', /presence/],
    ['a non-DER signature', (p) => ({ ...p, signature: Buffer.alloc(64, 1).toString('base64url') }), 'signatureValid', /signature/],
    ['another proof version', (p) => ({ ...p, v: 'svc-stepup-proof-v1' as SealProof['v'] }), 'wellFormed', /not a aerie-stepup-proof-v1/],
    ['padded base64', (p) => ({ ...p, signature: `${p.signature}==` }), 'wellFormed', /base64url/],
    ['clientDataJSON that is not JSON', (p) => ({ ...p, clientDataJSON: Buffer.from('nope').toString('base64url') }), 'wellFormed', /not JSON/],
  ])('fails with %s', (_name, tamper, failedCheck, reason) => {
    const result = verifySealProof(tamper(proof), auth.publicKeyJwk(credentialId));
    expect(result.ok).toBe(false);
    expect(result.checks[failedCheck as keyof typeof result.checks]).toBe(false);
    expect(result.reason).toMatch(reason);
  });

  it('fails with another P-256 key, and reports unusable keys without throwing', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    expect(verifySealProof(proof, other)).toMatchObject({ ok: false, checks: { challengeMatches: true, signatureValid: false } });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(verifySealProof(proof, p384).reason).toMatch(/not an EC P-256 key/);
    expect(verifySealProof(proof, new Uint8Array([0xa1, 0x01, 0x01])).reason).toMatch(/COSE key is not EC2/);
    expect(verifySealProof(proof, 'garbage').ok).toBe(false);
  });

  it('checks origin, RP ID and the rebuilt document when asked', () => {
    const key = auth.publicKeyCose(credentialId);
    const good = verifySealProof(proof, key, { origin: ORIGIN, rpId: RP_ID, binding });
    expect(good).toMatchObject({ ok: true, checks: { originMatches: true, rpIdMatches: true, canonicalMatches: true } });
    expect(verifySealProof(proof, key, { origin: 'https://evil.test' }).checks.originMatches).toBe(false);
    expect(verifySealProof(proof, key, { rpId: 'evil.test' }).reason).toMatch(/RP ID/);
    const changed = { ...binding, fields: binding.fields.map((f) => (f.key === 'decision' ? { ...f, value: 'approve' } : f)) };
    expect(verifySealProof(proof, key, { binding: changed })).toMatchObject({ ok: false, checks: { canonicalMatches: false } });
  });

  it('imports only P-256 keys', () => {
    expect(importPublicKey(auth.publicKeyPem(credentialId)).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    expect(() => importPublicKey(ed)).toThrow(/not an EC P-256 key/);
  });
});

import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { describe, expect, it } from 'vitest';
import { SoftAuthenticator, type AssertionOverrides } from '../../helpers/soft-authenticator.ts';

const ORIGIN = 'https://aerie.test';
const RP_ID = 'aerie.test';

async function register(auth: SoftAuthenticator, attestation: 'none' | 'packed') {
  const options = await generateRegistrationOptions({
    rpName: 'Aerie', rpID: RP_ID, userName: 'ada@example.com', attestationType: attestation === 'packed' ? 'direct' : 'none',
  });
  const response = auth.createCredential(options, { attestation });
  const result = await verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID });
  return { options, response, result };
}

async function assertOnce(auth: SoftAuthenticator, credential: WebAuthnCredential, overrides: AssertionOverrides = {}) {
  const options = await generateAuthenticationOptions({ rpID: RP_ID, allowCredentials: [{ id: credential.id }], userVerification: 'required' });
  const response = auth.getAssertion(options, overrides);
  return verifyAuthenticationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential });
}

describe('SoftAuthenticator against @simplewebauthn/server', () => {
  it.each(['none', 'packed'] as const)('registers with %s attestation and then authenticates', async (attestation) => {
    const auth = new SoftAuthenticator({ origin: ORIGIN, rpId: RP_ID });
    const { options, response, result } = await register(auth, attestation);
    expect(result.verified).toBe(true);
    const info = result.registrationInfo!;
    expect(info.fmt).toBe(attestation);
    expect(info.credential.id).toBe(response.id);
    expect(info.credential.counter).toBe(0);
    expect(info.userVerified).toBe(true);
    expect(info.credentialDeviceType).toBe('multiDevice');
    expect(info.credentialBackedUp).toBe(true);
    expect(Buffer.from(info.credential.publicKey)).toEqual(Buffer.from(auth.publicKeyCose(response.id)));
    expect(auth.publicKeyJwk(response.id)).toMatchObject({ kty: 'EC', crv: 'P-256' });

    const first = await assertOnce(auth, info.credential);
    expect(first.verified).toBe(true);
    expect(first.authenticationInfo.newCounter).toBe(1);
    const second = await assertOnce(auth, { ...info.credential, counter: first.authenticationInfo.newCounter });
    expect(second.verified).toBe(true);
    expect(second.authenticationInfo.newCounter).toBe(2);
    expect(auth.getAssertion({ challenge: 'AAAA', rpId: RP_ID }).response.userHandle).toBe(options.user.id);
  });

  it('reports a single-device credential when backup eligibility is off', async () => {
    const auth = new SoftAuthenticator({ origin: ORIGIN, rpId: RP_ID, backupEligible: false });
    const { result } = await register(auth, 'none');
    expect(result.registrationInfo!.credentialDeviceType).toBe('singleDevice');
    expect(result.registrationInfo!.credentialBackedUp).toBe(false);
  });

  it.each([
    ['cleared UP bit', { userPresent: false }, /User presence was required/],
    ['wrong origin', { origin: 'https://evil.test' }, /origin/],
    ['wrong rpId', { rpId: 'evil.test' }, /RP ID/],
    ['other challenge', { challenge: 'b3RoZXI' }, /challenge/],
    ['bogus packed signature', { corruptSignature: true }, null],
  ] as const)('packed registration with %s is rejected', async (_name, overrides, message) => {
    const auth = new SoftAuthenticator({ origin: ORIGIN, rpId: RP_ID });
    const options = await generateRegistrationOptions({ rpName: 'Aerie', rpID: RP_ID, userName: 'ada@example.com', attestationType: 'direct' });
    const response = auth.createCredential(options, { attestation: 'packed', ...overrides });
    const verifying = verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID });
    if (message === null) expect((await verifying).verified).toBe(false);
    else await expect(verifying).rejects.toThrow(message);
  });

  it.each<[string, AssertionOverrides, RegExp | null]>([
    ['cleared UP bit', { userPresent: false }, /User not present/],
    ['cleared UV bit (UV required)', { userVerified: false }, /User verification required/],
    ['wrong origin', { origin: 'https://evil.test' }, /origin/],
    ['wrong rpId', { rpId: 'evil.test' }, /RP ID/],
    ['wrong clientData type', { type: 'webauthn.create' }, /type/],
    ['other challenge', { challenge: 'b3RoZXI' }, /challenge/],
    ['bogus signature', { corruptSignature: true }, null],
    ['non-increasing counter', { signCount: 5 }, /counter value 5 was lower than expected 5/],
    ['decreasing counter', { signCount: 3 }, /counter value 3 was lower than expected 5/],
  ])('assertion with %s is rejected', async (_name, overrides, message) => {
    const auth = new SoftAuthenticator({ origin: ORIGIN, rpId: RP_ID });
    const { result } = await register(auth, 'none');
    const credential = { ...result.registrationInfo!.credential, counter: 5 };
    const { id } = credential;
    auth.getAssertion({ challenge: 'AAAA', rpId: RP_ID }, { signCount: 5 }); // the authenticator has been used 5 times
    if (message === null) {
      // A broken signature is not an exception in simplewebauthn: it reports verified: false.
      const outcome = await assertOnce(auth, credential, overrides);
      expect(outcome.verified).toBe(false);
    } else {
      await expect(assertOnce(auth, credential, overrides)).rejects.toThrow(message);
    }
    expect(auth.signCount(id)).toBe(overrides.signCount ?? 6);
  });

  it('refuses when no held credential is allowed, and honours excludeCredentials', async () => {
    const auth = new SoftAuthenticator({ origin: ORIGIN, rpId: RP_ID });
    const { response } = await register(auth, 'none');
    expect(() => auth.getAssertion({ challenge: 'AAAA', rpId: RP_ID, allowCredentials: [{ id: 'AAAA', type: 'public-key' }] }))
      .toThrow(/NotAllowedError/);
    expect(() => auth.getAssertion({ challenge: 'AAAA', rpId: 'other.test' })).toThrow(/NotAllowedError/);
    const again = await generateRegistrationOptions({ rpName: 'Aerie', rpID: RP_ID, userName: 'ada', excludeCredentials: [{ id: response.id }] });
    expect(() => auth.createCredential(again)).toThrow(/InvalidStateError/);
  });
});

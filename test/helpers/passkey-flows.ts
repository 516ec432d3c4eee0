/**
 * Passkey ceremonies against a running Aerie, driven by the software authenticator: add a passkey,
 * bind the personal seal, ask for a step-up challenge and sign it.
 */
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { TestAerie, TestResponse } from './harness.ts';
import { SoftAuthenticator, type AssertionOverrides, type CeremonyOverrides } from './soft-authenticator.ts';

/** A software authenticator reporting this Aerie's first WebAuthn origin and its RP ID. */
export function authenticatorFor(aerie: TestAerie): SoftAuthenticator {
  const { origins, rpId } = aerie.kernel.config.webauthn;
  return new SoftAuthenticator({ origin: origins[0], rpId });
}

/** Runs `POST /api/passkey/add/options` and `/api/passkey/add`; `res` is the add answer. */
export async function addPasskey(
  aerie: TestAerie, token: string, auth: SoftAuthenticator, overrides: CeremonyOverrides & { attestation?: 'none' | 'packed'; name?: string } = {},
): Promise<{ credentialId: string; res: TestResponse }> {
  const { name, ...ceremony } = overrides;
  const opts = await aerie.request('POST', '/api/passkey/add/options', { token, body: {} });
  if (opts.status !== 200) throw new Error(`add/options: ${opts.status} ${JSON.stringify(opts.body)}`);
  const response = auth.createCredential(opts.body.options as PublicKeyCredentialCreationOptionsJSON, ceremony);
  const res = await aerie.request('POST', '/api/passkey/add', { token, body: { response, ...(name ? { name } : {}) } });
  return { credentialId: response.id, res };
}

/** Adds a passkey and binds it as the personal seal. @throws Error when either step fails. */
export async function addSealPasskey(aerie: TestAerie, token: string, auth: SoftAuthenticator): Promise<string> {
  const { credentialId, res } = await addPasskey(aerie, token, auth);
  if (res.status !== 201) throw new Error(`add: ${res.status} ${JSON.stringify(res.body)}`);
  const bound = await aerie.request('POST', '/api/v1/seals', { token, body: { credentialId } });
  if (bound.status !== 200) throw new Error(`seal: ${bound.status} ${JSON.stringify(bound.body)}`);
  return credentialId;
}

/** Asks for step-up options and signs them. @throws Error when the options request fails or has no passkey. */
export async function signStepUp(
  aerie: TestAerie, token: string, auth: SoftAuthenticator,
  request: { purpose: string; subject: string; inputs?: Array<{ key: string; value: string }> }, overrides: AssertionOverrides = {},
): Promise<{ assertion: AuthenticationResponseJSON; options: PublicKeyCredentialRequestOptionsJSON; binding: any }> {
  const res = await aerie.request('POST', '/api/passkey/stepup/options', { token, body: request });
  if (res.status !== 200 || !res.body.hasPasskey) throw new Error(`stepup/options: ${res.status} ${JSON.stringify(res.body)}`);
  const options = res.body.options as PublicKeyCredentialRequestOptionsJSON;
  return { assertion: auth.getAssertion(options, overrides), options, binding: res.body.binding };
}

/** ES256 test keys and their JWKS (not a test file itself). */
import { exportJWK, generateKeyPair, type CryptoKey, type JSONWebKeySet } from 'jose';

export interface TestAuditKey {
  kid: string;
  privateKey: CryptoKey;
  jwks: JSONWebKeySet;
}

/** A fresh P-256 key pair and a JWKS publishing its public half under `kid`. */
export async function makeAuditKey(kid = 'audit-test-1'): Promise<TestAuditKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateKey, jwks: { keys: [jwk] } };
}

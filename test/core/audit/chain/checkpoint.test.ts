import { SignJWT, decodeProtectedHeader, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CHECKPOINT_TYP,
  CheckpointVerificationError,
  signCheckpoint,
  verifyCheckpoint,
  type CheckpointClaims,
} from '../../../../core/audit/chain/checkpoint.ts';
import { ORG_A } from './fixtures.ts';
import { makeAuditKey, type TestAuditKey } from './keys.ts';

const HEAD: CheckpointClaims = { orgId: ORG_A, seq: 500, chainHash: 'ab'.repeat(32), sealedAt: '2026-10-16T09:00:00.000Z' };

describe('signed checkpoints', () => {
  let key: TestAuditKey;
  let other: TestAuditKey;
  beforeAll(async () => {
    key = await makeAuditKey('audit-2026-10');
    other = await makeAuditKey('audit-2026-10'); // same kid, different key
  });

  it('signs {orgId, seq, chainHash, sealedAt} as an ES256 JWS typed aerie-audit-checkpoint+jwt', async () => {
    const jws = await signCheckpoint({ ...HEAD, extra: 'dropped' } as CheckpointClaims, key.privateKey, key.kid);
    expect(jws.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(jws)).toEqual({ alg: 'ES256', kid: 'audit-2026-10', typ: CHECKPOINT_TYP });
    const { iat, ...claims } = decodeJwt(jws);
    expect(claims).toEqual(HEAD);
    expect(typeof iat).toBe('number');
    expect(await verifyCheckpoint(jws, key.jwks)).toEqual({ ...HEAD, kid: 'audit-2026-10' });
  });

  const rejects = async (jws: string, jwks = key.jwks) => {
    const err = await verifyCheckpoint(jws, jwks).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointVerificationError);
    return err as CheckpointVerificationError;
  };

  it('fails when signed with another key under the published kid', async () => {
    const err = await rejects(await signCheckpoint(HEAD, other.privateKey, key.kid));
    expect(err.joseCode).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    expect(err.code).toBe('AUDIT_CHECKPOINT_INVALID');
  });

  it('fails when the kid is not in the JWKS', async () => {
    expect((await rejects(await signCheckpoint(HEAD, key.privateKey, 'unknown-kid'))).joseCode).toBe('ERR_JWKS_NO_MATCHING_KEY');
  });

  it('fails when the payload was edited (seq moved back)', async () => {
    const [h, , s] = (await signCheckpoint(HEAD, key.privateKey, key.kid)).split('.');
    const forged = Buffer.from(JSON.stringify({ ...HEAD, seq: 499 })).toString('base64url');
    await rejects(`${h}.${forged}.${s}`);
  });

  it('fails for an ES256 JWT of another type (no confusion with other platform tokens)', async () => {
    const jwt = await new SignJWT({ ...HEAD }).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
    await rejects(jwt);
  });

  it('fails for another algorithm even when its key is in the set', async () => {
    const rsa = await generateKeyPair('RS256');
    const jwks = { keys: [...key.jwks.keys, { ...(await exportJWK(rsa.publicKey)), kid: 'rsa', alg: 'RS256' }] };
    const jwt = await new SignJWT({ ...HEAD }).setProtectedHeader({ alg: 'RS256', kid: 'rsa', typ: CHECKPOINT_TYP }).sign(rsa.privateKey);
    expect((await rejects(jwt, jwks)).joseCode).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
  });

  it('fails for a validly signed checkpoint with malformed claims', async () => {
    const jwt = await new SignJWT({ ...HEAD, chainHash: 'XYZ' }).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: CHECKPOINT_TYP }).sign(key.privateKey);
    expect((await rejects(jwt)).message).toMatch(/malformed/);
  });

  it.each([
    ['seq 0', { seq: 0 }],
    ['uppercase chainHash', { chainHash: 'AB'.repeat(32) }],
    ['sealedAt without Z', { sealedAt: '2026-10-16T09:00:00.000' }],
    ['empty orgId', { orgId: '' }],
  ])('refuses to sign a head with %s', async (_, patch) => {
    await expect(signCheckpoint({ ...HEAD, ...patch }, key.privateKey, key.kid)).rejects.toThrow(TypeError);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { issuedLifetime, revocationMarkerSeconds } from '../../../plugins/keys/token-lifetime.ts';
import { createKey, decodeJwt, requestToken, setCeiling, startWithDirectory } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

/** docs/api/keys.md, row by row: [lifetimeSeconds, key ceiling, issued]. */
const SPEC_TABLE: Array<[number | undefined, number | null, number]> = [
  [undefined, null, 300],
  [undefined, 86400, 300],
  [undefined, 604800, 300],
  [86400, null, 300],
  [86400, 86400, 86400],
  [604800, 86400, 86400],
  [30, null, 60],
  [30, 86400, 60],
  [30, 60, 60],
];

describe('keys: machine-token lifetime (docs/api/keys.md)', () => {
  it.each(SPEC_TABLE)('lifetimeSeconds %s with ceiling %s gives %i (pure rule)', (lifetime, ceiling, issued) => {
    expect(issuedLifetime(lifetime, ceiling)).toBe(issued);
  });

  it('caps at 604800 and never exceeds the ceiling; an omitted lifetime on a ceiling below 300 gives the ceiling', () => {
    expect(issuedLifetime(10_000_000, 604800)).toBe(604800);
    expect(issuedLifetime(604800, 604800)).toBe(604800);
    expect(issuedLifetime(1000, 120)).toBe(120);
    expect(issuedLifetime(undefined, 120)).toBe(120);
    expect(issuedLifetime(200, null)).toBe(200);
    expect(issuedLifetime(1, 60)).toBe(60);
  });

  it('keeps a revocation marker for the ceiling plus one hour (rule 5)', () => {
    expect(revocationMarkerSeconds(null)).toBe(300 + 3600);
    expect(revocationMarkerSeconds(86400)).toBe(86400 + 3600);
  });

  describe('over HTTP', () => {
    let aerie: TestAerie;
    let org: TestOrg;
    let key: { id: string; value: string };

    beforeAll(async () => {
      aerie = await startWithDirectory();
      org = await signInWithOrg(aerie, 'owner@lifetime.test', 'lifetime');
      key = await createKey(aerie, org);
    });
    afterAll(() => aerie?.close());

    it.each(SPEC_TABLE)('lifetimeSeconds %s with ceiling %s issues %i seconds', async (lifetime, ceiling, issued) => {
      // A fresh key per row: a ceiling never changes after issue, so Aerie may remember it.
      const key = await createKey(aerie, org);
      await setCeiling(aerie, key.id, ceiling);
      const res = await requestToken(aerie, { orgSlug: org.slug, apiKey: key.value, ...(lifetime === undefined ? {} : { lifetimeSeconds: lifetime }) });
      expect(res.status).toBe(200);
      expect(res.body.expiresIn).toBe(issued);
      const { claims } = decodeJwt(res.body.accessToken);
      expect(claims.exp - claims.iat).toBe(issued);
    });

    it.each([[0], [-5], [1.5], ['300']])('refuses lifetimeSeconds %j with 400', async (lifetime) => {
      const res = await requestToken(aerie, { orgSlug: org.slug, apiKey: key.value, lifetimeSeconds: lifetime });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'lifetimeSeconds' });
    });
  });
});

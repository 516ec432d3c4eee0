import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { addSealPasskey, authenticatorFor, signStepUp } from '../../helpers/passkey-flows.ts';
import type { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { decodeJwt, requestToken, startWithDirectory } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const PURPOSE = 'api_key.long_lifetime';

describe('keys: a ceiling above 300 s needs the owner and a passkey seal (docs/api/keys.md)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let admin: string;
  let ownerAuth: SoftAuthenticator;
  let adminAuth: SoftAuthenticator;

  const create = (token: string, body: Record<string, unknown>) =>
    aerie.request('POST', '/api/org/acme/settings/keys/api-keys', { token, body: { name: 'long-lived', maxTokenLifetimeSeconds: 86400, ...body } });
  const keyCount = async () => (await aerie.sql('select count(*)::int as n from keys.api_keys'))[0].n as number;

  beforeAll(async () => {
    aerie = await startWithDirectory();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    admin = await aerie.signIn('admin@acme.test');
    await aerie.sql(`insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
      select gen_random_uuid(), ?, id, 'Admin', 'active', now(), now() from accounts.accounts where email = 'admin@acme.test'`, [acme.id]);
    ownerAuth = authenticatorFor(aerie);
    adminAuth = authenticatorFor(aerie);
    await addSealPasskey(aerie, acme.owner, ownerAuth);
    await addSealPasskey(aerie, admin, adminAuth);
  });
  afterAll(() => aerie?.close());

  it('without a seal: 401 STEPUP_REQUIRED naming the purpose, nothing created', async () => {
    const before = await keyCount();
    const res = await create(acme.owner, {});
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'STEPUP_REQUIRED', purpose: PURPOSE });
    expect(await keyCount()).toBe(before);
  });

  it('for a non-owner: 403 even with their own valid seal (checked before the seal)', async () => {
    const { assertion } = await signStepUp(aerie, admin, adminAuth, { purpose: PURPOSE, subject: 'acme' });
    const res = await create(admin, { assertionResponseJson: JSON.stringify(assertion) });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('PERMISSION_DENIED');
    expect((await create(admin, {})).status).toBe(403);
  });

  it('refuses seals that do not fit with 401 STEPUP_FAILED: garbage, other subject, other purpose, other person', async () => {
    const before = await keyCount();
    const otherSubject = await signStepUp(aerie, acme.owner, ownerAuth, { purpose: PURPOSE, subject: 'globex' });
    const otherPurpose = await signStepUp(aerie, acme.owner, ownerAuth, { purpose: 'roost.rearm', subject: 'acme' });
    const otherPerson = await signStepUp(aerie, admin, adminAuth, { purpose: PURPOSE, subject: 'acme' });
    const corrupted = await signStepUp(aerie, acme.owner, ownerAuth, { purpose: PURPOSE, subject: 'acme' }, { corruptSignature: true });
    const cases: Record<string, unknown> = {
      garbage: '{"id":"nope"}',
      'other subject': JSON.stringify(otherSubject.assertion),
      'other purpose': JSON.stringify(otherPurpose.assertion),
      'other person': JSON.stringify(otherPerson.assertion),
      'bad signature': JSON.stringify(corrupted.assertion),
    };
    for (const [label, assertionResponseJson] of Object.entries(cases)) {
      const res = await create(acme.owner, { assertionResponseJson });
      expect(res.status, label).toBe(401);
      expect(res.body.error, label).toBe('STEPUP_FAILED');
    }
    expect(await keyCount()).toBe(before);
  });

  it("creates the key with the owner's seal (once: a replay is refused), and its tokens reach the ceiling", async () => {
    const { assertion } = await signStepUp(aerie, acme.owner, ownerAuth, { purpose: PURPOSE, subject: 'acme' });
    const res = await create(acme.owner, { assertionResponseJson: assertion });
    expect(res.status).toBe(201);
    expect(res.body.maxTokenLifetimeSeconds).toBe(86400);
    const [created] = (await auditEvents(aerie, { id: acme.id })).filter((e) => e.eventType === 'org.api_key.created' && e.businessData.keyId === res.body.id);
    expect(created.businessData).toMatchObject({ maxTokenLifetimeSeconds: 86400, _humanSeal: { credentialId: expect.any(String), userId: expect.any(String) } });
    const replay = await create(acme.owner, { assertionResponseJson: assertion });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('STEPUP_FAILED');

    const token = await requestToken(aerie, { orgSlug: 'acme', apiKey: res.body.apiKey, lifetimeSeconds: 604800 });
    expect(token.body.expiresIn).toBe(86400);
    expect(decodeJwt(token.body.accessToken).claims.exp - decodeJwt(token.body.accessToken).claims.iat).toBe(86400);
    expect((await requestToken(aerie, { orgSlug: 'acme', apiKey: res.body.apiKey })).body.expiresIn).toBe(300);
  });
});

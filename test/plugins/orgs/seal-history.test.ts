import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { addPasskey, authenticatorFor } from '../../helpers/passkey-flows.ts';

describe("orgs: passkey lifecycle in each organization's change history", () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs'] });
  });
  afterAll(() => aerie?.close());

  it('seals seal.lifecycle.registered and .revoked on the chains of the organizations the account belongs to', async () => {
    const ann = await aerie.signIn('ann@example.com');
    const bob = await aerie.signIn('bob@example.com');
    for (const slug of ['ann-one', 'ann-two']) await aerie.request('POST', '/api/org/create', { token: ann, body: { name: slug, slug } });
    await aerie.request('POST', '/api/org/create', { token: bob, body: { name: 'Bob', slug: 'bobs' } });
    const { credentialId, res } = await addPasskey(aerie, ann, authenticatorFor(aerie));
    expect(res.status).toBe(201);
    expect((await aerie.request('DELETE', `/api/passkey/${credentialId}`, { token: ann })).status).toBe(204);
    await expect.poll(async () => {
      await aerie.kernel.auditSealer.drain();
      const rows = await aerie.sql(`select o.slug, e.event_type, e.actor_type, e.business_data->>'keyId' as key_id from core.audit_events e join orgs.organizations o on o.id = e.org_id where e.event_type like 'seal.lifecycle.%' order by o.slug, e.seq`);
      return rows;
    }, { timeout: 10_000 }).toEqual([
      { slug: 'ann-one', event_type: 'seal.lifecycle.registered', actor_type: 'account', key_id: credentialId },
      { slug: 'ann-one', event_type: 'seal.lifecycle.revoked', actor_type: 'account', key_id: credentialId },
      { slug: 'ann-two', event_type: 'seal.lifecycle.registered', actor_type: 'account', key_id: credentialId },
      { slug: 'ann-two', event_type: 'seal.lifecycle.revoked', actor_type: 'account', key_id: credentialId },
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { createKey, tokenFor } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

/**
 * Machine tokens on the console figures, by the rule of `GET /query?scope=all` (docs/api/audit.md
 * "Console figures"): a token of the organization holding the unconstrained
 * `org.audit_event_log.list` reads `/sessions`, `/stats` and `/stats/quick` (never `payment.*`: it
 * is not the Owner); without it 403 `PERMISSION_DENIED`; another organization's slug 401; the
 * heartbeat is a person's (401).
 */
describe('audit console figures: machine tokens', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let reader: string;
  let bare: string;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'rbac', 'audit', 'keys'] });
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    reader = await tokenFor(aerie, acme, (await createKey(aerie, acme, { scopes: ['org.audit_event_log.list'] })).value);
    bare = await tokenFor(aerie, acme, (await createKey(aerie, acme)).value);
    await aerie.kernel.auditSealer.drain();
  });
  afterAll(() => aerie?.close());

  const get = (path: string, token: string, slug = 'acme') => aerie.request('GET', `/api/v1/admin/audit/${path}?orgSlug=${slug}`, { token });

  it.each(['sessions', 'stats', 'stats/quick'])('/%s: 200 with org.audit_event_log.list, 403 without, 401 for another organization', async (path) => {
    const ok = await get(path, reader);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    if (path === 'sessions') {
      expect(ok.body.items.map((s: { email: string }) => s.email)).toEqual(['owner@acme.test']);
      expect(ok.body.items[0].current).toBe(false);
    } else {
      expect(ok.body.paymentEventsIncluded).toBe(false);
    }
    const refused = await get(path, bare);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.audit_event_log.list' });
    expect((await get(path, reader, 'globex')).status).toBe(401);
  });

  it('the heartbeat refuses a machine token (401): active time is a person’s', async () => {
    const res = await aerie.request('POST', '/api/v1/admin/audit/heartbeat', { token: reader, body: { orgSlug: 'acme' } });
    expect(res.status).toBe(401);
    expect(await aerie.sql('select count(*)::int as n from audit.member_activity')).toEqual([{ n: 0 }]);
  });
});

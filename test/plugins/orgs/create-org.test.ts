import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';

describe('orgs: create and resolve organizations', () => {
  let aerie: TestAerie;
  let ann: string;
  let bob: string;

  beforeAll(async () => {
    aerie = await TestAerie.start({ env: { AERIE_PLATFORM_ADMINS: 'root@example.com' } });
    ann = await aerie.signIn('ann@example.com', 'Ann');
    bob = await aerie.signIn('bob@example.com');
  });
  afterAll(() => aerie?.close());

  it('creates an organization with the creator as active Owner', async () => {
    const res = await aerie.request('POST', '/api/org/create', { token: ann, body: { name: 'Acme Ltd', slug: 'acme' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Acme Ltd', slug: 'acme', type: 'Standard', planKey: 'Free', ready: false, role: 'Owner' });
    expect(res.headers.get('location')).toBe('/api/org/acme');
    const rows = await aerie.sql(`select m.role, m.status, a.email from orgs.memberships m join accounts.accounts a on a.id = m.account_id join orgs.organizations o on o.id = m.org_id where o.slug = 'acme'`);
    expect(rows).toEqual([{ role: 'Owner', status: 'active', email: 'ann@example.com' }]);
    await aerie.kernel.auditSealer.drain();
    const chain = await aerie.sql(`select e.seq, e.event_type, e.actor_type, e.actor_id, e.business_data from core.audit_events e
      join orgs.organizations o on o.id = e.org_id where o.slug = 'acme' order by e.seq`);
    const [{ id: annId }] = await aerie.sql(`select id from accounts.accounts where email = 'ann@example.com'`);
    expect(chain[0]).toEqual({ seq: 1, event_type: 'org.created', actor_type: 'account', actor_id: annId, business_data: { slug: 'acme', name: 'Acme Ltd', type: 'Standard', planKey: 'Free' } });
  });

  it('writes nothing, on the chain either, when the slug is taken', async () => {
    const before = (await aerie.sql(`select count(*)::int as n from core.audit_outbox`))[0].n + (await aerie.sql(`select count(*)::int as n from core.audit_events where event_type = 'org.created'`))[0].n;
    expect((await aerie.request('POST', '/api/org/create', { token: bob, body: { name: 'Acme again', slug: 'acme' } })).status).toBe(409);
    const after = (await aerie.sql(`select count(*)::int as n from core.audit_outbox`))[0].n + (await aerie.sql(`select count(*)::int as n from core.audit_events where event_type = 'org.created'`))[0].n;
    expect(after).toBe(before);
  });

  it('answers GET /api/org/{slug} to members and 404 to everyone else', async () => {
    const own = await aerie.request('GET', '/api/org/acme', { token: ann });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ slug: 'acme', role: 'Owner' });
    const other = await aerie.request('GET', '/api/org/acme', { token: bob });
    expect(other.status).toBe(404);
    expect(other.body.error).toBe('NOT_FOUND');
    const unknown = await aerie.request('GET', '/api/org/nope-nope', { token: ann });
    expect(unknown.status).toBe(404);
    const anonymous = await aerie.request('GET', '/api/org/acme');
    expect(anonymous.status).toBe(401);
  });

  it('lists the organization on /me for its members only', async () => {
    const me = await aerie.request('GET', '/api/v1/users/me?_t=1', { token: ann });
    expect(me.body.organizations.map((o: { slug: string }) => o.slug)).toEqual(['acme']);
    const bobMe = await aerie.request('GET', '/api/v1/users/me?_t=1', { token: bob });
    expect(bobMe.body.organizations).toEqual([]);
  });

  it.each([
    ['duplicate slug', { name: 'Other', slug: 'acme' }, 409, 'SLUG_TAKEN'],
    ['reserved slug', { name: 'Other', slug: 'create' }, 400, 'SLUG_RESERVED'],
    ['slug with capitals', { name: 'Other', slug: 'Acme2' }, 400, 'VALIDATION_FAILED'],
    ['slug too short', { name: 'Other', slug: 'a' }, 400, 'VALIDATION_FAILED'],
    ['slug too long', { name: 'Other', slug: 'a'.repeat(40) }, 400, 'VALIDATION_FAILED'],
    ['slug starting with a dash', { name: 'Other', slug: '-acme' }, 400, 'VALIDATION_FAILED'],
    ['missing name', { slug: 'fresh-one' }, 400, 'VALIDATION_FAILED'],
    ['blank name', { name: '   ', slug: 'fresh-one' }, 400, 'VALIDATION_FAILED'],
    ['unknown type', { name: 'X', slug: 'fresh-one', type: 'Galaxy' }, 400, 'VALIDATION_FAILED'],
    ['unknown field', { name: 'X', slug: 'fresh-one', owner: 'me' }, 400, 'VALIDATION_FAILED'],
    ['wrong type of name', { name: 42, slug: 'fresh-one' }, 400, 'VALIDATION_FAILED'],
  ])('refuses %s with %i %s and writes nothing', async (_label, body, status, code) => {
    const before = await aerie.sql('select count(*)::int as n from orgs.organizations');
    const res = await aerie.request('POST', '/api/org/create', { token: bob, body });
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
    expect(typeof res.body.message).toBe('string');
    expect(await aerie.sql('select count(*)::int as n from orgs.organizations')).toEqual(before);
  });

  it('lets only platform admins set a plan', async () => {
    const refused = await aerie.request('PUT', '/api/v1/admin/orgs/acme/plan', { token: ann, body: { planKey: 'Pro' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('PERMISSION_DENIED');
    const root = await aerie.signIn('root@example.com');
    const ok = await aerie.request('PUT', '/api/v1/admin/orgs/acme/plan', { token: root, body: { planKey: 'Business' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ slug: 'acme', planKey: 'Business' });
    const bad = await aerie.request('PUT', '/api/v1/admin/orgs/acme/plan', { token: root, body: { planKey: 'Platinum' } });
    expect(bad.status).toBe(400);
    const missing = await aerie.request('PUT', '/api/v1/admin/orgs/nope-nope/plan', { token: root, body: { planKey: 'Pro' } });
    expect(missing.status).toBe(404);
    expect((await aerie.request('GET', '/api/org/acme', { token: ann })).body.planKey).toBe('Business');
  });
});

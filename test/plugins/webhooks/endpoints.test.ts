import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership } from '../apps/helpers.ts';

const BASE = (slug: string) => `/api/org/${slug}/webhook-endpoints`;
// A public address literal: registration resolves nothing and the address check passes.
const URL_OK = 'https://93.184.215.14/hooks/aerie';

describe('webhooks: endpoints (/api/org/{slug}/webhook-endpoints)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let member: string;

  beforeAll(async () => {
    // Deliveries to the public test address cannot connect here: a short time-out keeps shutdown quick.
    aerie = await TestAerie.start({ overrides: { 'webhooks.timeoutSeconds': 1 } });
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
  });
  afterAll(() => aerie?.close());

  const create = (body: Record<string, unknown>, org = acme, token = org.owner) => aerie.request('POST', BASE(org.slug), { token, body });

  it('registers an endpoint: the secret is shown once, stored encrypted, never listed; audited without it', async () => {
    const res = await create({ url: URL_OK, events: ['org.member.*', 'org.app_group.created'], description: 'CRM sync' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), url: URL_OK, events: ['org.member.*', 'org.app_group.created'], description: 'CRM sync',
      isActive: true, consecutiveFailures: 0, disabledAt: null, createdAt: expect.any(String), updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const [row] = await aerie.sql('select org_id, secret_ciphertext, created_by_owner from webhooks.endpoints where id = ?', [res.body.id]);
    expect(row.org_id).toBe(acme.id);
    expect(row.created_by_owner).toBe(true);
    expect(row.secret_ciphertext).not.toContain(res.body.secret.slice(6));
    const list = await aerie.request('GET', BASE('acme'), { token: acme.owner });
    expect(list.status).toBe(200);
    expect(list.body.webhookEndpoints.map((e: any) => e.id)).toContain(res.body.id);
    expect(JSON.stringify(list.body)).not.toContain('secret');
    const audit = await auditEvents(aerie, acme, 'org.webhook.created');
    expect(audit.at(-1)!.businessData).toMatchObject({ endpointId: res.body.id, url: URL_OK });
    expect(JSON.stringify(audit)).not.toContain(res.body.secret);
  });

  // Registration refuses every URL Aerie must not send to, whatever its spelling.
  it.each([
    ['http://93.184.215.14/', 'invalid_url'], ['https://user:pw@93.184.215.14/', 'invalid_url'], ['not a url', 'invalid_url'],
    ['https://127.0.0.1/', 'blocked'], ['https://2130706433/', 'blocked'], ['https://0x7f.1/', 'blocked'], ['https://[::1]/', 'blocked'],
    ['https://[::ffff:127.0.0.1]/', 'blocked'], ['https://10.0.0.8/', 'blocked'], ['https://192.168.1.20/', 'blocked'],
    ['https://169.254.169.254/latest/meta-data/', 'blocked'], ['https://[fd00:ec2::254]/', 'blocked'], ['https://100.100.100.200/', 'blocked'],
    ['https://localhost/', 'blocked'], ['https://[64:ff9b::a9fe:a9fe]/', 'blocked'],
  ])('refuses %s (400 WEBHOOK_URL_REFUSED, reason %s) and writes nothing', async (url, reason) => {
    const before = await aerie.sql('select count(*)::int as n from webhooks.endpoints');
    const res = await create({ url, events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'WEBHOOK_URL_REFUSED', field: 'url', reason });
    // Only that the address is refused: never what a name resolves to, or which kind of address it is.
    expect(res.body.message).not.toMatch(/resolves|loopback|private|link.local|metadata/i);
    expect(await aerie.sql('select count(*)::int as n from webhooks.endpoints')).toEqual(before);
  });

  it.each([[[]], [['org..x']], [['*', 'a.*.b']], [['a b']], [Array.from({ length: 50 }, (_, i) => `e${i}`).concat('x')]])(
    'refuses events %j', async (events) => {
      const res = await create({ url: URL_OK, events });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^(WEBHOOK_EVENTS_INVALID|VALIDATION_FAILED)$/);
      expect(res.body.field).toMatch(/^events/);
    });

  it.each([
    [{ events: ['*'] }, 'url'], [{ url: URL_OK }, 'events'], [{ url: URL_OK, events: ['*'], extra: 1 }, 'extra'],
    [{ url: 42, events: ['*'] }, 'url'], [{ url: URL_OK, events: ['*'], description: 'x'.repeat(501) }, 'description'],
    [{ url: URL_OK, events: ['*'], description: 'a\u202Eb' }, 'description'], [{ url: `https://e.test/${'a'.repeat(2048)}`, events: ['*'] }, 'url'],
  ])('refuses the body %j (400 VALIDATION_FAILED)', async (body, field) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED' });
    expect(res.body.field).toContain(field);
  });

  it('changes url, events, description; rotates the secret; toggles; deletes softly — each audited', async () => {
    const { body: ep } = await create({ url: URL_OK, events: ['*'] });
    const put = await aerie.request('PUT', `${BASE('acme')}/${ep.id}`, { token: acme.owner, body: { events: ['org.member.*'], description: null } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: ep.id, url: URL_OK, events: ['org.member.*'], description: null });
    expect((await aerie.request('PUT', `${BASE('acme')}/${ep.id}`, { token: acme.owner, body: { url: 'https://10.1.1.1/' } })).body.error).toBe('WEBHOOK_URL_REFUSED');
    expect((await aerie.request('PUT', `${BASE('acme')}/${ep.id}`, { token: acme.owner, body: {} })).status).toBe(400);

    const before = (await aerie.sql('select secret_ciphertext from webhooks.endpoints where id = ?', [ep.id]))[0].secret_ciphertext;
    const rot = await aerie.request('POST', `${BASE('acme')}/${ep.id}/rotate-secret`, { token: acme.owner });
    expect(rot.status).toBe(200);
    expect(rot.body).toEqual({ id: ep.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rot.body.secret).not.toBe(ep.secret);
    expect((await aerie.sql('select secret_ciphertext from webhooks.endpoints where id = ?', [ep.id]))[0].secret_ciphertext).not.toBe(before);

    await aerie.sql('update webhooks.endpoints set consecutive_failures = 7 where id = ?', [ep.id]);
    const off = await aerie.request('POST', `${BASE('acme')}/${ep.id}/toggle`, { token: acme.owner, body: { isActive: false } });
    expect(off.body).toMatchObject({ isActive: false, consecutiveFailures: 7, disabledAt: expect.any(String) });
    const on = await aerie.request('POST', `${BASE('acme')}/${ep.id}/toggle`, { token: acme.owner, body: { isActive: true } });
    expect(on.body).toMatchObject({ isActive: true, consecutiveFailures: 0, disabledAt: null });

    expect((await aerie.request('DELETE', `${BASE('acme')}/${ep.id}`, { token: acme.owner })).status).toBe(204);
    expect((await aerie.request('DELETE', `${BASE('acme')}/${ep.id}`, { token: acme.owner })).status).toBe(404);
    expect((await aerie.request('GET', `${BASE('acme')}/${ep.id}/deliveries`, { token: acme.owner })).status).toBe(404);
    const [row] = await aerie.sql('select deleted_at, is_active from webhooks.endpoints where id = ?', [ep.id]);
    expect(row.deleted_at).not.toBeNull();
    expect(row.is_active).toBe(false);
    const types = (await auditEvents(aerie, acme)).filter((e) => e.businessData.endpointId === ep.id).map((e) => e.eventType);
    expect(types).toEqual(['org.webhook.created', 'org.webhook.updated', 'org.webhook.secret_rotated', 'org.webhook.disabled', 'org.webhook.enabled', 'org.webhook.deleted']);
  });

  it('holds at most 20 live endpoints per organization (deleted ones do not count)', async () => {
    const live = (await aerie.request('GET', BASE('acme'), { token: acme.owner })).body.webhookEndpoints.length;
    for (let i = live; i < 20; i++) expect((await create({ url: URL_OK, events: ['*'] })).status).toBe(201);
    const over = await create({ url: URL_OK, events: ['*'] });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ error: 'WEBHOOK_LIMIT_REACHED', limit: 20 });
    const first = (await aerie.request('GET', BASE('acme'), { token: acme.owner })).body.webhookEndpoints[0];
    await aerie.request('DELETE', `${BASE('acme')}/${first.id}`, { token: acme.owner });
    expect((await create({ url: URL_OK, events: ['*'] })).status).toBe(201);
    // Another organization has its own 20.
    expect((await create({ url: URL_OK, events: ['*'] }, globex)).status).toBe(201);
  });

  it("another organization's endpoint ids look absent on every route; nothing changes", async () => {
    const { body: theirs } = await create({ url: URL_OK, events: ['*'] }, globex);
    const calls: Array<[string, string, unknown?]> = [
      ['PUT', `${BASE('acme')}/${theirs.id}`, { description: 'x' }], ['POST', `${BASE('acme')}/${theirs.id}/rotate-secret`],
      ['POST', `${BASE('acme')}/${theirs.id}/toggle`, { isActive: false }], ['DELETE', `${BASE('acme')}/${theirs.id}`],
      ['GET', `${BASE('acme')}/${theirs.id}/deliveries`], ['GET', `${BASE('acme')}/not-a-uuid/deliveries`],
    ];
    for (const [method, path, body] of calls) {
      const res = await aerie.request(method, path, { token: acme.owner, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
    const [row] = await aerie.sql('select description, is_active, deleted_at from webhooks.endpoints where id = ?', [theirs.id]);
    expect(row).toEqual({ description: null, is_active: true, deleted_at: null });
    // Globex's owner is not a member of acme: the organization itself is absent.
    expect((await aerie.request('GET', BASE('acme'), { token: globex.owner })).status).toBe(404);
  });

  it('a plain member without the scopes gets 403 PERMISSION_DENIED with the scope required', async () => {
    const res = await aerie.request('GET', BASE('acme'), { token: member });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.webhook.list' });
    const post = await create({ url: URL_OK, events: ['*'] }, acme, member);
    expect(post.body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.webhook.create' });
  });
});

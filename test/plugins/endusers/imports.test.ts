import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import type { TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { createKey } from '../../helpers/api-keys.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { BASE, createEndUser, inviteToken, startWorld } from './helpers.ts';

const PUBLIC = '/api/public/v1/end-users/import';

describe('endusers: bulk import and /api/public/v1/end-users/import', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let shop: string;
  let blog: string;
  let globexGroup: string;
  let apiKey: string;

  const bulk = (body: unknown, org = acme) => aerie.request('POST', `${BASE(org.slug)}/bulk-import`, { token: org.owner, body });
  const publicImport = (body: unknown, key = apiKey) => aerie.request('POST', PUBLIC, { headers: { 'x-api-key': key }, body });
  const count = async (org: TestOrg) => (await aerie.sql('select count(*)::int as n from endusers.end_users where org_id = ?', [org.id]))[0].n as number;
  const sendJobs = async () => (await aerie.sql("select count(*)::int as n from core_jobs.job where name = 'endusers.send-invites'"))[0].n as number;

  beforeAll(async () => {
    ({ aerie, acme, globex, shop, blog, globexGroup } = await startWorld());
    apiKey = (await createKey(aerie, acme)).value;
  });
  afterAll(() => aerie?.close());

  it('answers each row on its own: created, duplicates (in the request, in any case or Unicode form, existing) and invalid rows', async () => {
    const existing = await createEndUser(aerie, acme, { email: 'old@x.test', appGroupId: blog });
    const alreadyIn = await createEndUser(aerie, acme, { email: 'in@x.test', appGroupId: shop });
    const jobsBefore = await sendJobs();
    const res = await bulk({
      appGroupId: shop,
      users: [
        { email: 'Ren\u00e9e@x.test', displayName: 'Renée' },
        { email: 'RENE\u0301E@X.TEST' },
        { email: 'OLD@x.test' },
        { email: 'in@x.test' },
        { email: 'not-an-address' },
        { email: `${'a'.repeat(250)}@x.test` },
        { email: 'named@x.test', displayName: 'bad\u0007name' },
        { email: 'blank@x.test', displayName: '   ' },
        { email: 'bob@x.test' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byIndex = res.body.results;
    expect(byIndex.map((r: any) => [r.index, r.result, r.reason ?? null])).toEqual([
      [0, 'created', null], [1, 'duplicate', 'duplicate_in_request'], [2, 'duplicate', 'exists'], [3, 'duplicate', 'exists'],
      [4, 'invalid', 'email_invalid'], [5, 'invalid', 'email_invalid'], [6, 'invalid', 'display_name_invalid'], [7, 'invalid', 'display_name_invalid'],
      [8, 'created', null],
    ]);
    expect(byIndex[2]).toEqual({ index: 2, email: 'OLD@x.test', result: 'duplicate', reason: 'exists', endUserId: existing.id, accessGranted: true });
    expect(byIndex[3]).toMatchObject({ endUserId: alreadyIn.id, accessGranted: false });
    expect(byIndex[1]).toEqual({ index: 1, email: 'RENE\u0301E@X.TEST', result: 'duplicate', reason: 'duplicate_in_request' });

    const created = byIndex.filter((r: any) => r.result === 'created').map((r: any) => r.endUserId);
    const rows = await aerie.sql('select id, email, email_normalized, display_name, status, source from endusers.end_users where id = any(?)', [created]);
    expect(rows.sort((a: any, b: any) => created.indexOf(a.id) - created.indexOf(b.id))).toEqual([
      { id: created[0], email: 'Renée@x.test', email_normalized: 'renée@x.test', display_name: 'Renée', status: 'Pending', source: 'bulk-import' },
      { id: created[1], email: 'bob@x.test', email_normalized: 'bob@x.test', display_name: null, status: 'Pending', source: 'bulk-import' },
    ]);
    const access = await aerie.sql('select end_user_id, app_group_id from endusers.access where end_user_id = ? order by granted_at', [existing.id]);
    expect(access.map((a: any) => a.app_group_id)).toEqual([blog, shop]);

    const audit = await auditEvents(aerie, acme, 'org.end_user.created', 'org.end_user.access_granted');
    expect(audit.filter((e) => e.businessData.source === 'bulk-import').map((e) => [e.eventType, e.businessData.endUserId, e.businessData.via])).toEqual([
      ['org.end_user.created', created[0], 'import'], ['org.end_user.access_granted', existing.id, 'import'], ['org.end_user.created', created[1], 'import'],
    ]);
    expect(await sendJobs()).toBe(jobsBefore + 1);
    await inviteToken(aerie, 'Renée@x.test');
    await inviteToken(aerie, 'bob@x.test');
  });

  it('refuses the whole request (nothing written) for 501 rows, wrong types, unknown fields, over-long strings and a foreign app group', async () => {
    const before = await count(acme);
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `u${i}@many.test` }));
    expect(await bulk({ appGroupId: shop, users: rows(501) })).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'users' } });
    expect(await bulk({ appGroupId: shop, users: [] })).toMatchObject({ status: 400, body: { field: 'users' } });
    expect(await bulk({ appGroupId: shop, users: [{ email: 1 }] })).toMatchObject({ status: 400, body: { field: 'users.0.email' } });
    expect(await bulk({ appGroupId: shop, users: [{ email: 'a@b.test', role: 'x' }] })).toMatchObject({ status: 400, body: { field: 'users.0.role' } });
    expect(await bulk({ appGroupId: shop, users: [{ email: 'a@b.test', passwordHash: 'x' }] })).toMatchObject({ status: 400, body: { field: 'users.0.passwordHash' } });
    expect(await bulk({ appGroupId: shop, users: [{ email: `${'a'.repeat(1001)}@b.test` }] })).toMatchObject({ status: 400, body: { field: 'users.0.email' } });
    expect(await bulk({ appGroupId: shop, users: 'a@b.test' })).toMatchObject({ status: 400, body: { field: 'users' } });
    expect(await bulk({ appGroupId: globexGroup, users: rows(2) })).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'appGroupId' } });
    expect(await bulk({ appGroupId: shop, users: rows(2) }, globex)).toMatchObject({ status: 400, body: { field: 'appGroupId' } });
    expect(await count(acme)).toBe(before);
    const full = await bulk({ appGroupId: shop, users: rows(500) });
    expect(full.status).toBe(200);
    expect(full.body.results.filter((r: any) => r.result === 'created')).toHaveLength(500);
  });

  it('public import: dormant password hashes, source, invites only when asked', async () => {
    const jobsBefore = await sendJobs();
    const res = await publicImport({
      appGroupId: shop, source: 'legacy-crm', sendInvites: false,
      users: [
        { email: 'hashed@pub.test', displayName: 'Hash', passwordHash: '$2b$12$abcdefghijklmnopqrstuv', passwordHashAlgorithm: 'bcrypt' },
        { email: 'half@pub.test', passwordHash: '$2b$12$zzz' },
        { email: 'plain@pub.test' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.map((r: any) => [r.result, r.reason ?? null])).toEqual([['created', null], ['invalid', 'password_hash_incomplete'], ['created', null]]);
    const [row] = await aerie.sql("select password_hash, password_hash_algorithm, source, status from endusers.end_users where email_normalized = 'hashed@pub.test'");
    expect(row).toEqual({ password_hash: '$2b$12$abcdefghijklmnopqrstuv', password_hash_algorithm: 'bcrypt', source: 'legacy-crm', status: 'Pending' });
    expect(await sendJobs()).toBe(jobsBefore);
    const audited = (await auditEvents(aerie, acme, 'org.end_user.created')).filter((e) => e.businessData.source === 'legacy-crm');
    expect(audited.map((e) => [e.actorType, e.businessData.email, e.businessData.via])).toEqual([['apiKey', 'hashed@pub.test', 'import'], ['apiKey', 'plain@pub.test', 'import']]);

    const list = await aerie.request('GET', `${BASE('acme')}?search=pub.test`, { token: acme.owner });
    expect(list.body.total).toBe(2);
    expect(JSON.stringify(list.body)).not.toMatch(/\$2b\$|bcrypt|password/i);
    expect(JSON.stringify(await auditEvents(aerie, acme))).not.toMatch(/\$2b\$|bcrypt/);
    expect(JSON.stringify(res.body)).not.toMatch(/\$2b\$/);

    const invited = await publicImport({ appGroupId: blog, source: 'crm', sendInvites: true, users: [{ email: 'invited@pub.test' }, { email: 'hashed@pub.test' }] });
    expect(invited.body.results.map((r: any) => [r.result, r.accessGranted ?? null])).toEqual([['created', null], ['duplicate', true]]);
    expect(await sendJobs()).toBe(jobsBefore + 1);
    await inviteToken(aerie, 'invited@pub.test');
    expect(mailsTo(aerie.dataDir, 'hashed@pub.test')).toEqual([]);
  });

  it('public import: key tenancy, app-group-scoped keys (401), other credentials and bad input', async () => {
    expect(await publicImport({ appGroupId: globexGroup, source: 's', sendInvites: false, users: [{ email: 'a@t.test' }] }))
      .toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'appGroupId' } });
    const scoped = await createKey(aerie, acme, { appGroupId: shop });
    expect(await publicImport({ appGroupId: shop, source: 's', sendInvites: false, users: [{ email: 'a@t.test' }] }, scoped.value))
      .toMatchObject({ status: 401, body: { error: 'UNAUTHORIZED' } });
    expect((await aerie.request('POST', PUBLIC, { token: acme.owner, body: { appGroupId: shop, source: 's', sendInvites: false, users: [{ email: 'a@t.test' }] } })).status).toBe(401);
    expect((await publicImport({ appGroupId: shop, source: 's', sendInvites: false, users: [{ email: 'a@t.test' }] }, 'ah_live_nope')).status).toBe(401);
    const bad: Array<[unknown, string]> = [
      [{ appGroupId: shop, source: 's', users: [{ email: 'a@t.test' }] }, 'sendInvites'],
      [{ appGroupId: shop, source: 's', sendInvites: 'yes', users: [{ email: 'a@t.test' }] }, 'sendInvites'],
      [{ appGroupId: shop, source: 'has space', sendInvites: false, users: [{ email: 'a@t.test' }] }, 'source'],
      [{ appGroupId: shop, source: 's'.repeat(65), sendInvites: false, users: [{ email: 'a@t.test' }] }, 'source'],
      [{ appGroupId: shop, source: 's', sendInvites: false, users: [{ email: 'a@t.test', passwordHash: 'x'.repeat(1001), passwordHashAlgorithm: 'b' }] }, 'users.0.passwordHash'],
      [{ appGroupId: shop, source: 's', sendInvites: false, users: [{ email: 'a@t.test' }], orgId: globex.id }, 'orgId'],
    ];
    for (const [body, field] of bad) expect(await publicImport(body), field).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field } });
    expect(await aerie.sql("select * from endusers.end_users where email_normalized = 'a@t.test'")).toEqual([]);
  });

  it('answers concurrent imports of the same addresses with one end user each', async () => {
    const users = Array.from({ length: 50 }, (_, i) => ({ email: `race${i}@x.test` }));
    const [a, b] = await Promise.all([bulk({ appGroupId: shop, users }), bulk({ appGroupId: blog, users: [...users].reverse() })]);
    expect([a.status, b.status], JSON.stringify([a.body, b.body]).slice(0, 500)).toEqual([200, 200]);
    const results = [...a.body.results, ...b.body.results];
    expect(results.filter((r: any) => r.result === 'created')).toHaveLength(50);
    expect(results.filter((r: any) => r.result === 'duplicate' && r.reason === 'exists' && r.accessGranted === true)).toHaveLength(50);
    const [{ n }] = await aerie.sql("select count(*)::int as n from endusers.end_users where org_id = ? and email_normalized like 'race%'", [acme.id]);
    expect(n).toBe(50);
    const [{ g }] = await aerie.sql("select count(*)::int as g from endusers.access a join endusers.end_users u on u.id = a.end_user_id where u.email_normalized like 'race%'");
    expect(g).toBe(100);
  });
});

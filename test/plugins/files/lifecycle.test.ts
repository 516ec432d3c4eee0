import 'reflect-metadata';
import { eventually } from '../../helpers/eventually.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { BlobStore, Database } from '../../../core/index.ts';
import { filesRefs } from '../../../plugins/files/internal-refs.ts';
import { lifecycleJob } from '../../../plugins/files/lifecycle-job.ts';
import { call, fetchPresigned, fileRows, keyedOrg, s3Env, startS3, startWithOrg, uploaded, type KeyedOrg, type LocalS3 } from './helpers.ts';

const DAY = 86_400;
const HOUR = 3600;
const PRESET = { action: 'transition_ia', unaccessedDays: 90 };

describe.each(['file', 's3'] as const)('files: lifecycle rules on the %s driver', (driver) => {
  let aerie: TestAerie;
  let s3: LocalS3 | undefined;
  const clock = new ManualClock(new Date('2026-11-25T12:00:00Z'));
  const setPlan = (org: KeyedOrg, plan: string) => aerie.sql('update orgs.organizations set plan_key = ? where id = ?', [plan, org.id]);
  const rules = (org: KeyedOrg) => aerie.sql('select * from files.lifecycle_rules where org_id = ? order by created_at', [org.id]);
  const blob = () => aerie.kernel.container.resolve<BlobStore>(coreRefs.blob.id);
  let made = 0;
  const orgOn = async (slug: string, plan: string) => {
    const org = await keyedOrg(aerie, `${slug}-${driver}-${(made += 1)}`);
    await setPlan(org, plan);
    return org;
  };
  const jobsOf = async (org: KeyedOrg) => (await aerie.sql(`select state from core_jobs.job where name = 'files.lifecycle' and data->>'orgId' = ?`, [org.id])).map((r) => r.state as string);
  const run = (org: KeyedOrg) => {
    const c = aerie.kernel.container;
    return lifecycleJob({ db: c.resolve<Database>(coreRefs.db.id), clock, lifecycle: c.resolve(filesRefs.lifecycle.id) })
      .handler({ id: 'test', data: { orgId: org.id } });
  };

  beforeAll(async () => {
    s3 = driver === 's3' ? await startS3() : undefined;
    ({ aerie } = await startWithOrg({ clock, env: s3 ? s3Env(s3) : {} }));
  });
  afterAll(async () => {
    await aerie?.close();
    await s3?.close();
  });

  it.each([
    ['Free', PRESET, 403, 'lifecycle'], ['Pro', PRESET, 403, 'lifecycle'],
    ['ProPlus', PRESET, 201, null], ['ProPlus', { ...PRESET, unaccessedDays: 120 }, 403, 'lifecycle_custom'],
    ['ProPlus', { ...PRESET, scope: 'free' }, 403, 'lifecycle_custom'], ['ProPlus', { action: 'trash', unaccessedDays: 90 }, 403, 'lifecycle_custom'],
    ['Business', { action: 'trash', unaccessedDays: 45, scope: 'free' }, 201, null], ['Enterprise', { action: 'transition_ia', unaccessedDays: 3650, scope: 'project:p1' }, 201, null],
  ] as const)('on %s, %j answers %s %s', async (plan, body, status, feature) => {
    const org = await orgOn(`gate-${plan.toLowerCase()}`, plan);
    const res = await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', body);
    expect(res.status).toBe(status);
    if (feature) {
      expect(res.body).toMatchObject({ error: 'plan_upgrade_required', feature });
      expect(await rules(org)).toHaveLength(0);
    } else {
      expect(res.body).toEqual({
        id: expect.any(String), action: body.action, unaccessedDays: body.unaccessedDays, scope: 'scope' in body ? body.scope : null, enabled: true, planAllows: true,
        lastRunAt: null, lastRunCount: null, lastRunBytes: null, createdAt: clock.now().toISOString(),
      });
    }
    const custom = plan === 'Business' || plan === 'Enterprise';
    expect((await call(aerie, org.key, 'GET', '/storage/lifecycle/rules')).body).toMatchObject({
      maxRules: 10, canCustomize: custom, canTrash: custom, presetDays: 90, minDays: 30, maxDays: 3650,
    });
  });

  it.each([
    [{ action: 'delete', unaccessedDays: 90 }, 'invalid_action'], [{ unaccessedDays: 90 }, 'invalid_action'],
    [{ action: 'trash', unaccessedDays: 29 }, 'invalid_days'], [{ action: 'trash', unaccessedDays: 3651 }, 'invalid_days'],
    [{ action: 'trash', unaccessedDays: 30.5 }, 'invalid_days'], [{ action: 'trash', unaccessedDays: '90' }, 'invalid_days'],
    [{ action: 'trash', unaccessedDays: 90, scope: 'approval' }, 'invalid_scope'], [{ action: 'trash', unaccessedDays: 90, scope: 'project:' }, 'invalid_scope'],
    [{ action: 'trash', unaccessedDays: 90, scope: 5 }, 'invalid_scope'],
  ])('400 for %j: %s, nothing stored', async (body, code) => {
    const org = await orgOn('bad', 'Business');
    const res = await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', body);
    expect([res.status, res.body.error]).toEqual([400, code]);
    expect(await rules(org)).toHaveLength(0);
  });

  it('refuses an eleventh rule: 403 plan_upgrade_required, feature lifecycle_rules with limit and used', async () => {
    const org = await orgOn('eleven', 'Business');
    for (let i = 0; i < 10; i++) expect((await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', { action: 'transition_ia', unaccessedDays: 30 + i })).status).toBe(201);
    const res = await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', PRESET);
    expect([res.status, res.body]).toEqual([403, { error: 'plan_upgrade_required', message: expect.any(String), feature: 'lifecycle_rules', limit: 10, used: 10 }]);
    expect(await rules(org)).toHaveLength(10);
  });

  it('keeps rules after a downgrade with planAllows false; {enabled:false} pauses on any plan, re-enabling or changing is gated, delete works', async () => {
    const org = await orgOn('downgrade', 'Business');
    const custom = (await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', { action: 'trash', unaccessedDays: 60 })).body;
    const preset = (await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', PRESET)).body;
    await setPlan(org, 'ProPlus');
    const list = (await call(aerie, org.key, 'GET', '/storage/lifecycle/rules')).body;
    expect(Object.fromEntries(list.rules.map((r: any) => [r.id, r.planAllows]))).toEqual({ [custom.id]: false, [preset.id]: true });
    await setPlan(org, 'Free');
    const paused = await call(aerie, org.key, 'PUT', `/storage/lifecycle/rules/${custom.id}`, { enabled: false });
    expect([paused.status, paused.body.enabled, paused.body.planAllows]).toEqual([200, false, false]);
    for (const body of [{ enabled: true }, { enabled: false, unaccessedDays: 90 }, { unaccessedDays: 100 }]) {
      const res = await call(aerie, org.key, 'PUT', `/storage/lifecycle/rules/${custom.id}`, body);
      expect([res.status, res.body.error, res.body.feature]).toEqual([403, 'plan_upgrade_required', 'lifecycle']);
    }
    await setPlan(org, 'ProPlus');
    expect((await call(aerie, org.key, 'PUT', `/storage/lifecycle/rules/${custom.id}`, { enabled: true })).body).toMatchObject({ feature: 'lifecycle_custom' });
    const fixed = await call(aerie, org.key, 'PUT', `/storage/lifecycle/rules/${custom.id}`, { enabled: true, action: 'transition_ia', unaccessedDays: 90 });
    expect(fixed.body).toMatchObject({ enabled: true, planAllows: true, action: 'transition_ia', unaccessedDays: 90 });
    expect((await call(aerie, org.key, 'PUT', `/storage/lifecycle/rules/${custom.id}`, { unaccessedDays: 10 })).body.error).toBe('invalid_days');
    await setPlan(org, 'Free');
    expect((await call(aerie, org.key, 'DELETE', `/storage/lifecycle/rules/${preset.id}`)).status).toBe(204);
    expect((await rules(org)).map((r) => [r.id, r.enabled, r.action])).toEqual([[custom.id, true, 'transition_ia']]);
  });

  it("treats another organization's rules as absent", async () => {
    const owner = await orgOn('rules-owner', 'Business');
    const other = await orgOn('rules-other', 'Business');
    const rule = (await call(aerie, owner.key, 'POST', '/storage/lifecycle/rules', PRESET)).body;
    expect((await call(aerie, other.key, 'PUT', `/storage/lifecycle/rules/${rule.id}`, { enabled: false })).status).toBe(404);
    expect((await call(aerie, other.key, 'DELETE', `/storage/lifecycle/rules/${rule.id}`)).status).toBe(404);
    expect((await call(aerie, other.key, 'DELETE', '/storage/lifecycle/rules/not-a-uuid')).status).toBe(404);
    expect((await call(aerie, other.key, 'GET', '/storage/lifecycle/rules')).body.rules).toEqual([]);
    expect(await rules(owner)).toMatchObject([{ id: rule.id, enabled: true }]);
  });

  it('runs every 12 hours: transition_ia keeps the link, trash never deletes and spares sealed attachments, a failing file does not stop the rest', async () => {
    const org = await orgOn('run', 'Business');
    const other = await orgOn('run-other', 'Business');
    const old = await uploaded(aerie, org.key, randomBytes(700), 'old.bin');
    const gone = await uploaded(aerie, org.key, randomBytes(10), 'gone.bin');
    const sealed = await uploaded(aerie, org.key, randomBytes(20), 'sealed.bin');
    const otherOld = await uploaded(aerie, other.key, randomBytes(30), 'other.bin');
    clock.advance(40 * DAY);
    const recent = await uploaded(aerie, org.key, randomBytes(5), 'recent.bin');
    expect((await call(aerie, org.key, 'GET', `/files/${old.id}/download`)).status).toBe(200);
    clock.advance(10 * DAY); // old, gone, sealed: 50 days since upload; old accessed 10 days ago; recent: 10 days old
    await aerie.sql('update files.files set sealed = true where id = ?', [sealed.id]);
    const rows = await fileRows(aerie, org.id);
    await blob().delete(rows.find((r) => r.id === gone.id).blob_key);

    const ia = (await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', { action: 'transition_ia', unaccessedDays: 30 })).body;
    const [storage] = await aerie.sql('select lifecycle_next_run_at from files.org_storage where org_id = ?', [org.id]);
    expect(new Date(storage.lifecycle_next_run_at).getTime()).toBe(clock.now().getTime() + 12 * HOUR * 1000);
    await call(aerie, other.key, 'POST', '/storage/lifecycle/rules', { action: 'transition_ia', unaccessedDays: 30 });

    // The schedule files.lifecycle-due queues a job per organization once its rules are due.
    clock.advance(12 * HOUR - 1);
    await aerie.runSchedule('files.lifecycle-due');
    expect(await jobsOf(org)).toEqual([]);
    await run(org); // early: claims nothing
    expect((await rules(org))[0].last_run_at).toBeNull();
    clock.advance(1);
    await aerie.runSchedule('files.lifecycle-due');
    await eventually(async () => (await jobsOf(org)).join() === 'completed' && (await jobsOf(other)).join() === 'completed');
    await run(org); // a duplicate of the same run claims nothing
    const classes = Object.fromEntries((await fileRows(aerie, org.id)).map((r) => [r.file_name, r.storage_class]));
    expect(classes).toEqual({ 'old.bin': 'STANDARD', 'gone.bin': 'STANDARD', 'sealed.bin': 'STANDARD_IA', 'recent.bin': 'STANDARD' });
    expect((await rules(org))[0]).toMatchObject({ id: ia.id, last_run_count: 1, last_run_at: clock.now() });
    expect(Number((await rules(org))[0].last_run_bytes)).toBe(20);
    expect((await fileRows(aerie, other.id))[0].storage_class).toBe('STANDARD_IA');
    expect((await blob().get((await fileRows(aerie, other.id))[0].blob_key))?.storageClass).toBe('STANDARD_IA');
    await aerie.runSchedule('files.lifecycle-due'); // due again in 12 hours: nothing queued now
    expect(await jobsOf(org)).toEqual(['completed']);

    // 40 more days: old is now 50 days unaccessed and moves too; a link handed out before still works.
    clock.advance(40 * DAY);
    const link = await blob().presignGet(rows.find((r) => r.id === old.id).blob_key, { expiresInSeconds: 600 });
    await aerie.sql('update files.org_storage set lifecycle_next_run_at = ? where org_id = ?', [clock.now(), org.id]);
    await run(org);
    const moved = (await fileRows(aerie, org.id)).find((r) => r.id === old.id);
    expect(moved.storage_class).toBe('STANDARD_IA');
    expect((await blob().get(moved.blob_key))?.storageClass).toBe('STANDARD_IA');
    expect((await fetchPresigned(aerie, link)).status).toBe(200);

    // A trash rule: live files past the window go to the trash (never purged by the rule), sealed ones stay.
    await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', { action: 'trash', unaccessedDays: 60, scope: 'free' });
    await aerie.sql('update files.org_storage set lifecycle_next_run_at = ? where org_id = ?', [clock.now(), org.id]);
    await run(org);
    const after = Object.fromEntries((await fileRows(aerie, org.id)).map((r) => [r.file_name, r.deleted_at !== null]));
    expect(after).toEqual({ 'old.bin': false, 'gone.bin': true, 'sealed.bin': false, 'recent.bin': false });
    expect((await call(aerie, org.key, 'GET', '/storage/usage')).body).toMatchObject({ trashedCount: 1, trashedBytes: 10, usedBytes: 700 + 20 + 5 });
    expect(otherOld.id).toBeDefined();
  });

  it('stops running an organization without rules (no due time left), and skips rules its plan no longer allows', async () => {
    const org = await orgOn('chain-end', 'Business');
    await uploaded(aerie, org.key, 'x', 'x.bin');
    const rule = (await call(aerie, org.key, 'POST', '/storage/lifecycle/rules', { action: 'trash', unaccessedDays: 30 })).body;
    clock.advance(31 * DAY);
    await setPlan(org, 'Pro');
    await run(org);
    expect((await fileRows(aerie, org.id))[0].deleted_at).toBeNull();
    expect((await rules(org))[0].last_run_at).toBeNull();
    await call(aerie, org.key, 'DELETE', `/storage/lifecycle/rules/${rule.id}`);
    clock.advance(12 * HOUR);
    await run(org);
    const [storage] = await aerie.sql('select lifecycle_next_run_at from files.org_storage where org_id = ?', [org.id]);
    expect(storage.lifecycle_next_run_at).toBeNull();
  });
});

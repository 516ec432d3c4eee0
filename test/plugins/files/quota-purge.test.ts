import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService, BlobStore, Database, JobsService } from '../../../core/index.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { filesRefs } from '../../../plugins/files/internal-refs.ts';
import { purgeJob, type PurgeData } from '../../../plugins/files/purge.ts';
import { call, fileRows, keyedOrg, startWithOrg, upload, uploaded, usedBytes, type KeyedOrg } from './helpers.ts';

const GIB = 1024 ** 3;
const DAY = 86_400;

describe('files: quotas by plan, and the purge of the trash', () => {
  let aerie: TestAerie;
  let acme: KeyedOrg;
  const clock = new ManualClock(new Date('2026-11-25T12:00:00Z'));
  const setPlan = (org: KeyedOrg, plan: string) => aerie.sql('update orgs.organizations set plan_key = ? where id = ?', [plan, org.id]);
  const setUsed = (org: KeyedOrg, bytes: number) => aerie.sql('update files.org_storage set used_bytes = ? where org_id = ?', [bytes, org.id]);

  beforeAll(async () => {
    ({ aerie, org: acme } = await startWithOrg({ clock }));
  });
  afterAll(() => aerie?.close());

  it.each([['Free', 2 * GIB, 7], ['Pro', 30 * GIB, 30], ['ProPlus', 100 * GIB, 30], ['Business', 200 * GIB, 30], ['Enterprise', null, 30]] as const)(
    'reports the %s plan: limitBytes %s, trash kept %s days', async (plan, limit, days) => {
      const org = await keyedOrg(aerie, `plan-${plan.toLowerCase()}`);
      await setPlan(org, plan);
      await uploaded(aerie, org.key, randomBytes(100));
      const usage = await call(aerie, org.key, 'GET', '/storage/usage');
      expect(usage.body).toEqual({
        usedBytes: 100, limitBytes: limit, remainingBytes: limit === null ? null : limit - 100, fileCount: 1, trashedBytes: 0, trashedCount: 0, trashRetentionDays: days,
      });
    });

  it('lets an unlimited plan past any usage figure', async () => {
    const org = await keyedOrg(aerie, 'unlimited');
    await setPlan(org, 'Enterprise');
    await uploaded(aerie, org.key, 'x');
    await setUsed(org, 10_000 * GIB);
    expect((await upload(aerie, org.key, randomBytes(1000))).status).toBe(201);
    expect(await usedBytes(aerie, org.id)).toBe(10_000 * GIB + 1000);
  });

  it('admits at most one of two concurrent uploads racing for the last free bytes', async () => {
    const org = await keyedOrg(aerie, 'race');
    await uploaded(aerie, org.key, 'x');
    await setUsed(org, 2 * GIB - 1500);
    const answers = await Promise.all([upload(aerie, org.key, randomBytes(1000)), upload(aerie, org.key, randomBytes(1000))]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403]);
    const refused = answers.find((a) => a.status === 403)!;
    expect(refused.body).toEqual({ error: 'storage_quota_exceeded', message: expect.any(String), usedBytes: 2 * GIB - 500, limitBytes: 2 * GIB });
    expect(await usedBytes(aerie, org.id)).toBe(2 * GIB - 500);
    expect(await fileRows(aerie, org.id)).toHaveLength(2);
    expect((await call(aerie, org.key, 'GET', '/storage/usage')).body).toMatchObject({ usedBytes: 2 * GIB - 500, remainingBytes: 500 });
  });

  it('admits exactly as many of eight concurrent uploads as fit', async () => {
    const org = await keyedOrg(aerie, 'race-eight');
    await uploaded(aerie, org.key, 'x');
    await setUsed(org, 2 * GIB - 3500);
    const answers = await Promise.all(Array.from({ length: 8 }, () => upload(aerie, org.key, randomBytes(1000))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 403 && a.body.error === 'storage_quota_exceeded')).toHaveLength(5);
    expect(await usedBytes(aerie, org.id)).toBe(2 * GIB - 500);
    expect(await fileRows(aerie, org.id)).toHaveLength(4);
  });

  it('re-checks the quota on restore: 403 storage_quota_exceeded, the file stays in the trash', async () => {
    const org = await keyedOrg(aerie, 'restore');
    const file = await uploaded(aerie, org.key, randomBytes(2000));
    await call(aerie, org.key, 'DELETE', `/files/${file.id}`);
    expect((await call(aerie, org.key, 'GET', '/storage/usage')).body).toMatchObject({ usedBytes: 0, fileCount: 0, trashedBytes: 2000, trashedCount: 1 });
    await setUsed(org, 2 * GIB - 1000);
    const res = await call(aerie, org.key, 'POST', `/files/${file.id}/restore`);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'storage_quota_exceeded', usedBytes: 2 * GIB - 1000, limitBytes: 2 * GIB });
    expect((await fileRows(aerie, org.id))[0].deleted_at).not.toBeNull();
    expect(await usedBytes(aerie, org.id)).toBe(2 * GIB - 1000);
  });

  it('answers 429 RATE_LIMITED past 60 share-link opens a minute from one address', async () => {
    const org = await keyedOrg(aerie, 'share-flood');
    const file = await uploaded(aerie, org.key, 'x');
    await call(aerie, org.key, 'PATCH', `/files/${file.id}/share`, { mode: 'link_anyone' });
    const statuses = [];
    for (let i = 0; i < 61; i++) statuses.push((await aerie.request('GET', `/api/public/share/${file.shareToken}`)).status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    const refused = await aerie.request('GET', `/api/public/share/${file.shareToken}`);
    expect([refused.status, refused.body.error, refused.headers.get('retry-after') !== null]).toEqual([429, 'RATE_LIMITED', true]);
    expect(await auditEvents(aerie, org, 'org.file.share_viewed')).toHaveLength(60);
  });

  describe('purge', () => {
    const handler = () => {
      const c = aerie.kernel.container;
      return purgeJob({
        db: c.resolve<Database>(coreRefs.db.id), blob: c.resolve<BlobStore>(coreRefs.blob.id), clock, audit: c.resolve<AuditService>(coreRefs.audit.id),
        jobs: c.resolve<JobsService>(coreRefs.jobs.id), storage: c.resolve(filesRefs.storage.id),
      }).handler;
    };
    const run = (data: PurgeData) => handler()({ id: 'test', data });
    const queued = async (fileId: string) => aerie.sql(`select start_after from core_jobs.job where name = 'files.purge' and data->>'fileId' = ? order by created_on`, [fileId]);

    it.each([['Free', 7], ['Pro', 30]] as const)('removes a trashed file (row and bytes) after %s retention, not a second earlier, and only once', async (plan, days) => {
      const org = await keyedOrg(aerie, `purge-${plan.toLowerCase()}`);
      await setPlan(org, plan);
      const file = await uploaded(aerie, org.key, randomBytes(500));
      const [row] = await fileRows(aerie, org.id);
      await call(aerie, org.key, 'DELETE', `/files/${file.id}`);
      const [job] = await queued(file.id);
      expect(Math.abs(new Date(job.start_after).getTime() - Date.now() - days * DAY * 1000)).toBeLessThan(60_000);
      const blob = aerie.kernel.container.resolve<BlobStore>(coreRefs.blob.id);

      clock.advance(days * DAY - 1);
      await run({ orgId: org.id, fileId: file.id });
      expect(await fileRows(aerie, org.id)).toHaveLength(1);
      expect(await queued(file.id)).toHaveLength(2); // queued again for the last second

      clock.advance(1);
      await run({ orgId: org.id, fileId: file.id });
      await run({ orgId: org.id, fileId: file.id });
      expect(await fileRows(aerie, org.id)).toHaveLength(0);
      expect(await blob.get(row.blob_key)).toBeUndefined();
      expect(await usedBytes(aerie, org.id)).toBe(0);
      expect((await auditEvents(aerie, org, 'org.file.purged')).map((e) => e.businessData)).toEqual([{ fileId: file.id, fileName: 'a.bin', sizeBytes: 500 }]);
    });

    it('leaves a restored file alone', async () => {
      const org = await keyedOrg(aerie, 'purge-restored');
      const file = await uploaded(aerie, org.key, 'keep me');
      await call(aerie, org.key, 'DELETE', `/files/${file.id}`);
      await call(aerie, org.key, 'POST', `/files/${file.id}/restore`);
      clock.advance(8 * DAY);
      await run({ orgId: org.id, fileId: file.id });
      expect(await fileRows(aerie, org.id)).toHaveLength(1);
      expect((await call(aerie, org.key, 'GET', `/files/${file.id}/download`)).status).toBe(200);
    });
  });
});

import 'reflect-metadata';
import { hash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { compactDayFile } from '../../../core/audit/chain/chain-tasks.ts';
import type { Workers } from '../../../core/workers/workers.types.ts';
import { decodeDayFile, encodeDayFile } from '../../../core/audit/chain/day-file.ts';
import { auditRefs } from '../../../plugins/audit/api.ts';
import type { DayFileArchive } from '../../../plugins/audit/day-files.ts';
import { COMPACTION_JOB } from '../../../plugins/audit/compaction-job.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { offlineCheckFiles, verifyFile } from '../../helpers/verify-file.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Day 1 is three days ago (UTC); the clock starts there at 10:00 and moves forward only. */
const D1 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const [DAY1, DAY2, DAY3] = [day(D1), day(D1 + DAY), day(D1 + 2 * DAY)];

describe('audit archive: Parquet day files, nightly compaction, offline verification, download routes', () => {
  let aerie: TestAerie;
  let archive: DayFileArchive;
  let workers: Workers;
  const clock = new ManualClock(new Date(D1 + 10 * HOUR));
  const tokens: Record<string, string> = {};
  const orgs: Record<string, string> = {};
  let root: string;

  const append = async (orgId: string, n: number, label: string) => {
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, Array.from({ length: n }, (_, i) => ({
      orgId, eventType: i % 3 === 0 ? 'payment.charge' : 'org.thing.done', actor: { type: 'system' as const, id: 'test' }, occurredAt: clock.now(),
      businessData: { label, i, note: 'naïve ☃' },
    }))));
    await aerie.kernel.auditSealer.drain();
  };
  const manifest = (orgId: string) =>
    aerie.sql(`select day, first_seq::int as "firstSeq", last_seq::int as "lastSeq", prev_hash as "prevHash", head_hash as "headHash", row_count as "rowCount", byte_size::int as "byteSize", sha256, blob_key as "blobKey" from audit.day_files where org_id = ? order by day`, [orgId]);
  const blobFiles = (orgId: string) => {
    const dir = join(aerie.dataDir, 'blobs', 'org', orgId, 'audit', 'days');
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.parquet')) : [];
  };

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'audit'], clock, exactBaseUrl: true, env: { AERIE_PLATFORM_ADMINS: 'root@example.com' } });
    archive = aerie.kernel.container.resolve<DayFileArchive>(auditRefs.dayFiles.id);
    workers = aerie.kernel.container.resolve<Workers>(coreRefs.workers.id); // the kernel's, the audit chain's tasks registered
    root = await aerie.signIn('root@example.com');
    for (const who of ['owner', 'admin', 'member', 'zetaOwner']) tokens[who] = await aerie.signIn(`${who}@example.com`);
    for (const [slug, who] of [['acme', 'owner'], ['zeta', 'zetaOwner']]) {
      const res = await aerie.request('POST', '/api/org/create', { token: tokens[who], body: { name: slug, slug } });
      expect(res.status).toBe(201);
      orgs[slug] = res.body.id;
    }
    for (const [who, role] of [['admin', 'Admin'], ['member', 'Member']]) {
      await aerie.sql(
        `insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
         select gen_random_uuid(), o.id, a.id, ?, 'active', now(), now() from orgs.organizations o, accounts.accounts a where o.slug = 'acme' and a.email = ?`,
        [role, `${who}@example.com`],
      );
    }
    // Day 1: both organizations; day 2: both, in two sealing batches; day 3: acme only.
    await append(orgs.acme, 5, 'd1');
    await append(orgs.zeta, 3, 'd1');
    clock.advance(DAY / 1000);
    await append(orgs.acme, 4, 'd2a');
    clock.advance(13 * 3600);
    await append(orgs.acme, 3, 'd2b');
    await append(orgs.zeta, 2, 'd2');
    clock.advance(3600 + 10 * 60); // day 3, 00:10: days 1 and 2 are complete, day 3 is today
    await append(orgs.acme, 2, 'd3');
  });
  afterAll(async () => {
    await aerie?.close();
  });

  it('a compaction worker that throws leaves no day file and no manifest row; the other organization goes on; the rerun completes it', async () => {
    // Day 3 is today: only days 1 and 2 are due.
    const crashed = await archive.compactPending({
      compact: async (task) => {
        if (Buffer.from(task.records).toString().includes(orgs.acme)) throw new Error('worker crashed');
        return compactDayFile(workers, task);
      },
    });
    expect(crashed.failed).toEqual([{ orgId: orgs.acme, day: DAY1, error: 'worker crashed' }]); // acme's day 2 waits for the next run
    expect(crashed.written).toEqual([{ orgId: orgs.zeta, day: DAY1 }, { orgId: orgs.zeta, day: DAY2 }]);
    expect(await manifest(orgs.acme)).toEqual([]);
    expect(blobFiles(orgs.acme)).toEqual([]);
    expect(blobFiles(orgs.zeta)).toHaveLength(2);

    const rerun = await archive.compactPending();
    expect(rerun).toEqual({ written: [{ orgId: orgs.acme, day: DAY1 }, { orgId: orgs.acme, day: DAY2 }], waiting: [], failed: [] });
    const rows = await manifest(orgs.acme);
    expect(rows.map((r) => [r.day, r.rowCount])).toEqual([[DAY1, rows[0].lastSeq - rows[0].firstSeq + 1], [DAY2, 7]]);
    // Consecutive days partition the chain and link: day 2 starts right after day 1's head.
    expect(rows[1].firstSeq).toBe(rows[0].lastSeq + 1);
    expect(rows[1].prevHash).toBe(rows[0].headHash);
    expect(rows[0].firstSeq).toBe(1);
    for (const r of rows) {
      const bytes = await readFile(join(aerie.dataDir, 'blobs', ...r.blobKey.split('/')));
      expect(hash('sha256', bytes, 'hex')).toBe(r.sha256);
      expect(bytes.length).toBe(r.byteSize);
      expect(r.blobKey).toBe(`org/${orgs.acme}/audit/days/${r.day}.${r.sha256.slice(0, 16)}.parquet`);
    }
    // Idempotent: nothing left to do, nothing rewritten.
    expect(await archive.compactPending()).toEqual({ written: [], waiting: [], failed: [] });
    expect(await archive.compactDay(orgs.acme, DAY1)).toBe('exists');
    expect(await archive.compactDay(orgs.acme, day(D1 - 5 * DAY))).toBe('empty');
  });

  it('a file that does not verify once stored is removed and never recorded', async () => {
    // A poison result for a day not yet archived: tampered content under stale hashes.
    clock.advance(DAY / 1000); // day 4, 00:10: day 3 is due
    const bad = await archive.compactPending({
      compact: async (task) => {
        const records = Buffer.from(task.records).toString().split('\n').map((line) => JSON.parse(line));
        records[0].businessData.label = 'forged';
        return encodeDayFile({ records, day: task.day, checkpoints: task.checkpoints });
      },
    });
    expect(bad.failed).toEqual([{ orgId: orgs.acme, day: DAY3, error: expect.stringContaining('does not verify: payload_hash_mismatch') }]);
    expect((await manifest(orgs.acme)).map((r) => r.day)).toEqual([DAY1, DAY2]);
    expect(blobFiles(orgs.acme)).toHaveLength(2);
  });

  it('the nightly schedule (00:05 UTC) compacts the due days', async () => {
    expect(await aerie.sql(`select cron, timezone from core_jobs.schedule where name = ?`, [COMPACTION_JOB])).toEqual([{ cron: '5 0 * * *', timezone: 'UTC' }]);
    await aerie.runSchedule(COMPACTION_JOB);
    expect((await manifest(orgs.acme)).map((r) => r.day)).toEqual([DAY1, DAY2, DAY3]);
    expect(await aerie.sql(`select last_error from core.job_schedules where name = ?`, [COMPACTION_JOB])).toEqual([{ last_error: null }]);
  });

  it('a stored day file verifies offline with the published JWKS; tampered in the blob store, it fails with exit code 1', async () => {
    const [row] = await manifest(orgs.acme);
    const { jwks, file } = await offlineCheckFiles(aerie, row.blobKey);
    const ok = await verifyFile(file, jwks);
    expect(ok.exitCode).toBe(0);
    expect(ok.out).toContain(`org ${orgs.acme}, day ${DAY1}: seq ${row.firstSeq}..${row.lastSeq}`);

    const original = await readFile(file);
    const { meta, records } = await decodeDayFile(original);
    records[1].businessData.label = 'd1!';
    await writeFile(file, encodeDayFile({ records, day: meta.day, checkpoints: meta.checkpoints }).bytes);
    const bad = await verifyFile(file, jwks);
    expect(bad.exitCode).toBe(1);
    expect(bad.out).toContain('first failure: payload_hash_mismatch');
    await writeFile(file, original);
  });

  it('a day whose last record no signed checkpoint covers waits; once a later checkpoint exists, one is signed for it and the day is written', async () => {
    const DAY4 = day(clock.now().getTime());
    await append(orgs.acme, 2, 'd4');
    const [{ seq: head }] = await aerie.sql(`select seq::int as seq from core.audit_heads where org_id = ?`, [orgs.acme]);
    // The process that sealed day 4's last records died before signing them.
    await aerie.sql(`delete from core.audit_checkpoints where org_id = ? and seq >= ?`, [orgs.acme, head - 1]);
    clock.advance(DAY / 1000); // day 5, 00:10
    expect(await archive.compactPending()).toEqual({ written: [], waiting: [{ orgId: orgs.acme, day: DAY4 }], failed: [] });
    expect(await archive.dayFile(orgs.acme, DAY4)).toBeUndefined();
    await append(orgs.acme, 1, 'd5'); // sealed and signed: vouches for day 4's last record through the links
    expect(await archive.compactPending()).toEqual({ written: [{ orgId: orgs.acme, day: DAY4 }], waiting: [], failed: [] });
    expect(await aerie.sql(`select seq::int as seq from core.audit_checkpoints where org_id = ? and seq = ?`, [orgs.acme, head])).toEqual([{ seq: head }]);
    expect(await archive.dayFile(orgs.acme, DAY4)).toMatchObject({ lastSeq: head, rowCount: 2 });
  });

  describe('GET /presign and /compact/urls', () => {
    const setPlan = async (planKey: string) =>
      expect((await aerie.request('PUT', '/api/v1/admin/orgs/acme/plan', { token: root, body: { planKey } })).status).toBe(200);
    const presign = (who: string, params: Record<string, string>) =>
      aerie.request('GET', `/api/v1/admin/audit/presign?${new URLSearchParams({ orgSlug: 'acme', ...params })}`, { token: tokens[who] });
    const urls = (who: string, params: Record<string, string>) =>
      aerie.request('GET', `/api/v1/admin/audit/compact/urls?${new URLSearchParams({ orgSlug: 'acme', ...params })}`, { token: tokens[who] });

    beforeAll(async () => {
      // Sessions were made three days ago on the test clock: sign in again now.
      for (const who of ['owner', 'admin', 'member', 'zetaOwner']) tokens[who] = await aerie.signIn(`${who}@example.com`);
      root = await aerie.signIn('root@example.com');
    });

    const matrix: Array<[plan: string, who: string, status: number, error?: string]> = [
      ['Free', 'owner', 403, 'UPGRADE_REQUIRED'],
      ['Free', 'admin', 403, 'PERMISSION_DENIED'],
      ['Free', 'member', 403, 'PERMISSION_DENIED'],
      ['Pro', 'admin', 403, 'PERMISSION_DENIED'],
      ['Pro', 'member', 403, 'PERMISSION_DENIED'],
      ['Pro', 'zetaOwner', 404, 'NOT_FOUND'],
      ['Pro', 'owner', 200],
      ['Enterprise', 'owner', 200],
    ];
    it.each(matrix)('plan %s, %s → %i %s', async (plan, who, status, error) => {
      await setPlan(plan);
      for (const res of [await presign(who, { day: DAY1 }), await urls(who, { from: DAY1, to: DAY3 })]) {
        expect(res.status).toBe(status);
        if (error) expect(res.body.error).toBe(error);
        if (error === 'UPGRADE_REQUIRED') expect(res.body.feature).toBe('feature.audit.view_all');
        if (error === 'PERMISSION_DENIED') expect(res.body.required).toBe('org.audit_event_log.list');
      }
    });

    it('the signed URL downloads exactly the bytes whose SHA-256 the manifest holds', async () => {
      await setPlan('Pro');
      const [row] = await manifest(orgs.acme);
      const res = await presign('owner', { day: DAY1 });
      expect(res.body).toMatchObject({ day: DAY1, sha256: row.sha256, byteSize: row.byteSize, firstSeq: row.firstSeq, lastSeq: row.lastSeq, headHash: row.headHash, fileName: `audit-acme-${DAY1}.parquet` });
      expect(Date.parse(res.body.expiresAt) - clock.now().getTime()).toBe(300_000);
      const download = await fetch(res.body.url);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('application/vnd.apache.parquet');
      const bytes = Buffer.from(await download.arrayBuffer());
      expect(hash('sha256', bytes, 'hex')).toBe(row.sha256);
      expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
    });

    it('lists the window\'s day files oldest first with URLs; another organization\'s day and a day without a file are 404', async () => {
      await setPlan('Pro');
      const res = await urls('owner', { from: day(D1 - 10 * DAY), to: DAY3 });
      expect(res.status).toBe(200);
      expect(res.body.files.map((f: { day: string }) => f.day)).toEqual([DAY1, DAY2, DAY3]);
      const rows = await manifest(orgs.acme);
      for (const [i, f] of res.body.files.entries()) {
        const bytes = Buffer.from(await (await fetch(f.url)).arrayBuffer());
        expect(hash('sha256', bytes, 'hex')).toBe(rows[i].sha256);
      }
      // zeta has day files for day 1 and 2; acme's Owner cannot reach them, under either slug.
      const zeta = await aerie.request('GET', `/api/v1/admin/audit/presign?orgSlug=zeta&day=${DAY1}`, { token: tokens.owner });
      expect(zeta.status).toBe(404);
      expect((await presign('owner', { day: day(D1 - DAY) })).status).toBe(404);
    });

    it('validates the window: at most 90 days, from not after to, real calendar days', async () => {
      await setPlan('Pro');
      expect((await urls('owner', { from: day(D1 - 89 * DAY), to: DAY1 })).status).toBe(200);
      const long = await urls('owner', { from: day(D1 - 90 * DAY), to: DAY1 });
      expect(long.status).toBe(400);
      expect(long.body).toMatchObject({ error: 'QUERY_SPAN_TOO_LONG', maxDays: 90 });
      expect((await urls('owner', { from: DAY2, to: DAY1 })).status).toBe(400);
      expect((await presign('owner', { day: '2026-02-30' })).status).toBe(400);
      expect((await presign('owner', { day: 'yesterday' })).status).toBe(400);
    });
  });
});

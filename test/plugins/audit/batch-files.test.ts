import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import type { AuditLog } from '../../../core/audit/audit-log.types.ts';
import { auditRefs, type BatchFiles } from '../../../plugins/audit/api.ts';
import { BATCH_MAX_AGE_MS, BATCH_MAX_RECORDS, BATCH_MIN_RECORDS } from '../../../plugins/audit/batch-files.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { offlineCheckFiles, verifyFile } from '../../helpers/verify-file.ts';


describe('audit raw archive: batch files written as the chains grow', () => {
  let aerie: TestAerie;
  let batches: BatchFiles;
  const clock = new ManualClock(new Date());
  const tokens: Record<string, string> = {};
  const orgs: Record<string, string> = {};

  const append = async (orgId: string, n: number) => {
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    for (let i = 0; i < n; i += 1000) {
      await audit.ingest(orgId, Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
        eventType: 'app.thing.done', actor: { type: 'system' as const, id: 'test' }, businessData: { i: i + j, note: 'naïve ☃' },
      })));
    }
  };
  const manifest = (orgId: string) =>
    aerie.sql(`select first_seq::int as "firstSeq", last_seq::int as "lastSeq", row_count as "rowCount", blob_key as "blobKey", sha256 from audit.batch_files where org_id = ? order by first_seq`, [orgId]);

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'audit'], clock, exactBaseUrl: true, env: { AERIE_PLATFORM_ADMINS: 'root@example.com' } });
    batches = aerie.kernel.container.resolve<BatchFiles>(auditRefs.batchFiles.id);
    for (const who of ['owner', 'zetaOwner', 'root']) tokens[who] = await aerie.signIn(`${who}@example.com`);
    for (const [slug, who] of [['acme', 'owner'], ['zeta', 'zetaOwner']]) {
      const res = await aerie.request('POST', '/api/org/create', { token: tokens[who], body: { name: slug, slug } });
      orgs[slug] = res.body.id;
    }
    expect((await aerie.request('PUT', '/api/v1/admin/orgs/acme/plan', { token: tokens.root, body: { planKey: 'Pro' } })).status).toBe(200);
  });
  afterAll(async () => {
    await aerie?.close();
  });

  it('runs of 1,000 or more are written as they are sealed, contiguous, at most 10,000 records a file; a short run waits 5 minutes', async () => {
    const contiguous = (files: Array<{ firstSeq: number; lastSeq: number; rowCount: number }>, head: number) => {
      expect(files[0].firstSeq).toBe(1);
      for (const [i, f] of files.entries()) {
        expect(f.rowCount).toBe(f.lastSeq - f.firstSeq + 1);
        expect(f.rowCount).toBeLessThanOrEqual(BATCH_MAX_RECORDS);
        if (i > 0) expect(f.firstSeq).toBe(files[i - 1].lastSeq + 1);
      }
      // Everything is archived but possibly a fresh tail shorter than a run (the background archiver
      // may have cut the runs at other places than drain() would have).
      expect(head - files.at(-1)!.lastSeq).toBeLessThan(BATCH_MIN_RECORDS);
    };
    const headOf = async (orgId: string) => (await aerie.sql(`select seq::int as head from core.audit_heads where org_id = ?`, [orgId]))[0].head as number;
    await append(orgs.zeta, 5);
    await append(orgs.acme, 11_500);
    await aerie.kernel.auditSealer.drain();
    await batches.drain(); // the archiver also runs in the background, woken by the sealing: either writes a run, once
    const files = await manifest(orgs.acme);
    contiguous(files, await headOf(orgs.acme));
    expect(await manifest(orgs.zeta)).toEqual([]); // 6 records, sealed just now: waiting
    expect(await batches.drain()).toEqual([]);
    expect(await manifest(orgs.acme)).toEqual(files); // nothing written twice

    // With the background archiver stopped, a short run waits 5 minutes; then a backlog of 12,000
    // becomes files of 10,000 and 2,000.
    await batches.stop();
    clock.advance(BATCH_MAX_AGE_MS / 1000 + 1); // any short tail and zeta's 6 records are due now
    await batches.drain();
    const before = await headOf(orgs.acme);
    expect((await manifest(orgs.acme)).at(-1)!.lastSeq).toBe(before);
    expect((await manifest(orgs.zeta)).map((f) => [f.firstSeq, f.lastSeq, f.rowCount])).toEqual([[1, 6, 6]]);
    await append(orgs.acme, 12_000);
    expect((await batches.drain()).map((f) => [f.firstSeq, f.rowCount])).toEqual([[before + 1, 10_000], [before + 10_001, 2_000]]);
    contiguous(await manifest(orgs.acme), await headOf(orgs.acme));
  });

  it('a backlog of runs before the next checkpoint is verified once: a checkpoint is signed at each later run end on the way', async () => {
    // The background archiver is stopped (previous test). 30,000 records sealed at one instant: the
    // checkpointer signs the first head at once and the rest waits, so the backlog's runs of 10,000
    // have no checkpoint at their ends until the archive vouches for them.
    const log = aerie.kernel.container.resolve<AuditLog>(coreRefs.auditLog.id);
    const start = (await manifest(orgs.acme)).at(-1)!.lastSeq;
    await append(orgs.acme, 30_000);
    let read = 0;
    const records = log.records.bind(log);
    const spy = vi.spyOn(log, 'records').mockImplementation(async (...args) => {
      const rows = await records(...args);
      read += rows.length;
      return rows;
    });
    try {
      expect((await batches.drain()).map((f) => [f.firstSeq, f.rowCount])).toEqual([[start + 1, 10_000], [start + 10_001, 10_000], [start + 20_001, 10_000]]);
    } finally {
      spy.mockRestore();
    }
    // Each run once, plus one stretch from the first run's end to the checkpoint at the head (20,001):
    // reading the stretch again for every run would be 30,000 + 20,001 + 10,001 + 1.
    expect(read).toBeLessThanOrEqual(30_000 + 20_001 + 10);
    const signed = await aerie.sql(`select seq::int as seq from core.audit_checkpoints where org_id = ? and seq > ? order by seq`, [orgs.acme, start]);
    expect(signed.map((c: { seq: number }) => c.seq)).toEqual(expect.arrayContaining([start + 10_000, start + 20_000, start + 30_000]));
    for (const f of (await manifest(orgs.acme)).slice(-3)) {
      const { jwks, file } = await offlineCheckFiles(aerie, f.blobKey);
      expect((await verifyFile(file, jwks)).exitCode).toBe(0);
    }
  });

  it('a stored batch file verifies offline with the published JWKS; altered, it fails', async () => {
    const [row] = await manifest(orgs.acme);
    const { jwks, file } = await offlineCheckFiles(aerie, row.blobKey);
    const ok = await verifyFile(file, jwks);
    expect(ok.exitCode).toBe(0);
    const { readFile } = await import('node:fs/promises');
    const original = await readFile(file, 'utf8');
    await writeFile(file, original.replace('"i":7,', '"i":8,'));
    expect((await verifyFile(file, jwks)).exitCode).toBe(1);
    await writeFile(file, original);
  });

  it('GET /presign?seq= hands out the batch file holding a record, for the Owner on Pro; others and other organizations are refused', async () => {
    const presign = (who: string, query: string) => aerie.request('GET', `/api/v1/admin/audit/presign?${query}`, { token: tokens[who] });
    const res = await presign('owner', 'orgSlug=acme&seq=10005');
    expect(res.status).toBe(200);
    const second = (await manifest(orgs.acme)).find((f) => f.firstSeq <= 10005 && f.lastSeq >= 10005)!;
    expect(res.body).toMatchObject({ kind: 'batch', firstSeq: second.firstSeq, lastSeq: second.lastSeq, rowCount: second.rowCount, sha256: second.sha256, fileName: `audit-acme-${second.firstSeq}-${second.lastSeq}.jsonl` });
    const bytes = Buffer.from(await (await fetch(res.body.url)).arrayBuffer());
    const { hash } = await import('node:crypto');
    expect(hash('sha256', bytes, 'hex')).toBe(second.sha256);
    expect((await presign('owner', 'orgSlug=acme&seq=999999')).status).toBe(404);
    expect((await presign('zetaOwner', 'orgSlug=acme&seq=1')).status).toBe(404);
    expect((await presign('zetaOwner', 'orgSlug=zeta&seq=1')).body.error).toBe('UPGRADE_REQUIRED'); // zeta is on Free
    expect((await presign('owner', 'orgSlug=acme')).status).toBe(400);
    expect((await presign('owner', 'orgSlug=acme&seq=1&day=2026-01-01')).status).toBe(400);
    expect((await presign('owner', 'orgSlug=acme&seq=0')).status).toBe(400);
  });
});

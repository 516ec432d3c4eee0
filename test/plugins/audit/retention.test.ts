import 'reflect-metadata';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { GENESIS_HASH } from '../../../core/audit/chain/chain-hash.ts';
import { decodeDayFile } from '../../../core/audit/chain/day-file.ts';
import { verifyRecords } from '../../../core/audit/chain/verify-chain.ts';
import type { SealedAuditRecord } from '../../../core/audit/chain/audit-record.ts';
import { registerAuditFileCommands } from '../../../core/audit/chain/verify-file.command.ts';
import { auditRefs, type AuditQueryService, type AuditRetention } from '../../../plugins/audit/api.ts';
import type { DayFileArchive } from '../../../plugins/audit/day-files.ts';
import { registerAuditCommands } from '../../../plugins/audit/audit.command.ts';
import { RETENTION_JOB } from '../../../plugins/audit/retention-job.ts';
import { orgsRefs } from '../../../plugins/orgs/api.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { mailsTo } from '../../helpers/mail.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Day 1 is forty days ago (UTC); the clock starts there at 10:00 and moves forward only. */
const D1 = Math.floor(Date.now() / DAY) * DAY - 40 * DAY;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const [DAY1, DAY2, DAY3] = [day(D1), day(D1 + DAY), day(D1 + 2 * DAY)];
const OWNER = 'acme-owner@example.com';
const ZETA_OWNER = 'zeta-boss@example.com';

/** Runs an `aerie …` command in-process: its stdout and exit code. */
async function cli(register: (program: Command) => void, args: string[]) {
  const io = { out: '' };
  const program = new Command('aerie').exitOverride().configureOutput({ writeOut: (s) => (io.out += s), writeErr: () => {} });
  register(program);
  const error = await program.parseAsync(args, { from: 'user' }).then(() => undefined, (e: unknown) => e as CommanderError);
  return { out: io.out, exitCode: error?.exitCode ?? 0 };
}

describe('audit retention: notices to Owners, purge of archived days, verification across the purge horizon', () => {
  let aerie: TestAerie;
  let archive: DayFileArchive;
  let enforcer: AuditRetention;
  let auditQuery: AuditQueryService;
  const clock = new ManualClock(new Date(D1 + 10 * HOUR));
  const orgs: Record<string, string> = {};
  let root: string;
  let jwksFile: string;

  const append = async (orgId: string, n: number, label: string) => {
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, Array.from({ length: n }, (_, i) => ({
      orgId, eventType: 'org.thing.done', actor: { type: 'system' as const, id: 'test' }, occurredAt: clock.now(), businessData: { label, i },
    }))));
    await aerie.kernel.auditSealer.drain();
  };
  const manifest = (orgId: string) =>
    aerie.sql(`select day, first_seq::int as "firstSeq", last_seq::int as "lastSeq", head_hash as "headHash", blob_key as "blobKey" from audit.day_files where org_id = ? order by day`, [orgId]);
  const hotSeqs = async (orgId: string) =>
    (await aerie.sql(`select seq::int as seq from core.audit_events where org_id = ? order by seq`, [orgId])).map((r: { seq: number }) => r.seq);
  const blobPath = (key: string) => join(aerie.dataDir, 'blobs', ...key.split('/'));
  /** The retention notices mailed to `to`: headers unfolded, quoted-printable body decoded. */
  const notices = (to: string) => mailsTo(aerie.dataDir, to).filter((m) => /^X-Aerie-Template: audit-retention-/m.test(m))
    .map((m) => m.replace(/\r?\n[ \t]+/g, ' ').replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
  const events = (orgId: string, type: string) =>
    aerie.sql(`select business_data as "businessData" from core.audit_events where org_id = ? and event_type = ? order by seq`, [orgId, type]);
  /** A new day at 00:10: the nightly compaction, then the sealer drained (notice and purge events). */
  const nextDays = async (n: number) => {
    clock.advance((n * DAY) / 1000);
    const report = await archive.compactPending();
    expect(report.failed).toEqual([]);
  };
  /** One enforcement run; reports in the order [acme, zeta]. */
  const run = async () => {
    const result = await enforcer.runAll();
    await aerie.kernel.auditSealer.drain();
    return { ...result, reports: [orgs.acme, orgs.zeta].map((id) => result.reports.find((r) => r.orgId === id)!) };
  };

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'audit'], clock, exactBaseUrl: true, env: { AERIE_PLATFORM_ADMINS: 'root@example.com' } });
    archive = aerie.kernel.container.resolve<DayFileArchive>(auditRefs.dayFiles.id);
    enforcer = aerie.kernel.container.resolve<AuditRetention>(auditRefs.retention.id);
    auditQuery = aerie.kernel.container.resolve<AuditQueryService>(auditRefs.query.id);
    root = await aerie.signIn('root@example.com');
    for (const [slug, who] of [['acme', OWNER], ['zeta', ZETA_OWNER]]) {
      const token = await aerie.signIn(who);
      const res = await aerie.request('POST', '/api/org/create', { token, body: { name: slug, slug } });
      expect(res.status).toBe(201);
      orgs[slug] = res.body.id;
      expect((await aerie.request('PUT', `/api/v1/admin/orgs/${slug}/plan`, { token: root, body: { planKey: 'Free' } })).status).toBe(200); // 1 day
    }
    // Three days of events for both organizations, at 10:00 UTC.
    for (const [i, label] of ['d1', 'd2', 'd3'].entries()) {
      if (i > 0) clock.advance(DAY / 1000);
      await append(orgs.acme, 3 + i, label);
      await append(orgs.zeta, 2, label);
    }
    await nextDays(0.6); // day 4, 00:24: days 1-3 have day files
    jwksFile = join(aerie.dataDir, 'jwks.json');
    await writeFile(jwksFile, JSON.stringify((await aerie.request('GET', '/api/public/audit/.well-known/jwks.json')).body));
  });
  afterAll(async () => {
    await aerie?.close();
  });

  it('sends the first notice once the oldest event left the window, the final one 7 days later, each once', async () => {
    expect((await manifest(orgs.acme)).map((r) => r.day)).toEqual([DAY1, DAY2, DAY3]);
    const first = await run();
    expect(first.failed).toEqual([]);
    expect(first.reports.map((r) => r.notices)).toEqual([['first'], ['first']]);
    expect((await run()).reports.map((r) => r.notices)).toEqual([[], []]); // a second run sends nothing
    const [mail] = notices(OWNER);
    expect(notices(OWNER)).toHaveLength(1);
    expect(notices(ZETA_OWNER)).toHaveLength(1);
    expect(mail).toMatch(/^Subject: Audit events of acme up to .* leave the hot store on /m);
    const purgeAt = new Date(clock.now().getTime() + 14 * DAY).toISOString();
    expect(mail).toContain(`From ${purgeAt} they leave the hot store`);
    expect(mail).toContain('They stay in the archive');
    expect(mail).toContain(`/api/v1/admin/audit/compact/urls?orgSlug=acme&from=${DAY1}`);
    // What the members see: the cohort's times.
    const token = await aerie.signIn(OWNER);
    const retention = await aerie.request('GET', '/api/v1/admin/audit/retention?orgSlug=acme', { token });
    expect(retention.body).toMatchObject({ firstNoticeAt: clock.now().toISOString(), purgeScheduledAt: purgeAt, purgeUnlocked: false, purgeHorizon: null });

    await nextDays(6); // six days later: not yet
    expect((await run()).reports.map((r) => r.notices)).toEqual([[], []]);
    await nextDays(1);
    expect((await run()).reports.map((r) => r.notices)).toEqual([['final'], ['final']]);
    expect((await run()).reports.map((r) => r.notices)).toEqual([[], []]);
    expect(notices(OWNER)).toHaveLength(2);
    expect(notices(OWNER)[1]).toMatch(/^Subject: Final notice: Audit events of acme/m);
    expect((await events(orgs.acme, 'org.audit.retention_notice_sent')).map((e: { businessData: { notice: string } }) => e.businessData.notice)).toEqual(['first', 'final']);
    expect((await hotSeqs(orgs.acme))[0]).toBe(1); // nothing purged yet
  });

  it('a corrupt day file in the blob store blocks that organization\'s purge (nothing deleted); the other organization is purged', async () => {
    const [zetaDay1] = await manifest(orgs.zeta);
    const original = await readFile(blobPath(zetaDay1.blobKey));
    const corrupt = Buffer.from(original);
    corrupt[Math.floor(corrupt.length / 2)] ^= 0xff;
    await writeFile(blobPath(zetaDay1.blobKey), corrupt);
    const zetaBefore = await hotSeqs(orgs.zeta);
    const acmeDays = await manifest(orgs.acme);

    await nextDays(6); // 13 days after the first notice: not yet
    expect((await run()).reports.map((r) => r.purged)).toEqual([undefined, undefined]);
    await nextDays(1); // 14 days after the first notice
    const { reports, failed } = await run();
    expect(failed).toEqual([]);
    const [acme, zeta] = reports;
    // acme: days 1 and 2 occurred before the cohort's cut-off (day 3, 00:24); day 3's events at 10:00 did not.
    expect(acme.purged).toEqual({ fromSeq: 1, throughSeq: acmeDays[1].lastSeq, rows: acmeDays[1].lastSeq, days: [DAY1, DAY2] });
    expect(acme.blocked).toBeUndefined();
    expect((await hotSeqs(orgs.acme))[0]).toBe(acmeDays[1].lastSeq + 1);
    expect(zeta.purged).toBeUndefined();
    expect(zeta.blocked).toContain('SHA-256');
    expect(await hotSeqs(orgs.zeta)).toEqual(zetaBefore);
    expect(await aerie.sql(`select count(*)::int as n from audit.purge_horizons where org_id = ?`, [orgs.zeta])).toEqual([{ n: 0 }]);

    expect(await aerie.sql(`select through_seq::int as "throughSeq", chain_hash as "chainHash", day from audit.purge_horizons where org_id = ?`, [orgs.acme]))
      .toEqual([{ throughSeq: acmeDays[1].lastSeq, chainHash: acmeDays[1].headHash, day: DAY2 }]);
    expect((await events(orgs.acme, 'org.audit.retention_purged')).map((e: { businessData: unknown }) => e.businessData)).toEqual([
      expect.objectContaining({ fromSeq: 1, throughSeq: acmeDays[1].lastSeq, rows: acmeDays[1].lastSeq, days: 2, firstDay: DAY1, lastDay: DAY2 }),
    ]);
    // The next run purges nothing more; day 3 onwards is the next cohort, with its own first notice.
    const again = await run();
    expect(again.reports[0]).toMatchObject({ notices: ['first'] });
    expect(again.reports[0].purged).toBeUndefined();
    expect(notices(OWNER)).toHaveLength(3);

    // The file repaired, zeta's purge completes on the next run.
    await writeFile(blobPath(zetaDay1.blobKey), original);
    const repaired = await run();
    expect(repaired.reports[1].purged).toMatchObject({ fromSeq: 1, days: [DAY1, DAY2] });
  });

  it('the archive (day files, offline) plus the remaining hot rows verify end to end across the purge horizon', async () => {
    const days = await manifest(orgs.acme);
    const archived: SealedAuditRecord[] = [];
    for (const row of days) {
      const file = blobPath(row.blobKey);
      const offline = await cli(registerAuditFileCommands, ['audit', 'verify-file', file, '--jwks', jwksFile]);
      expect(offline.exitCode, offline.out).toBe(0);
      const { records } = await decodeDayFile(await readFile(file));
      if (records[0].seq > (archived.at(-1)?.seq ?? 0)) archived.push(...records);
    }
    const hot = await auditQuery.verifyChain(orgs.acme);
    expect(hot).toMatchObject({ ok: true, horizon: { throughSeq: days[1].lastSeq, chainHash: days[1].headHash, day: DAY2 } });
    const [{ headSeq }] = [hot];
    expect(hot.checked).toBe(headSeq - days[1].lastSeq);
    // Archive prefix + hot rows: one chain from the genesis hash to the head.
    const rest = await aerie.kernel.container.resolve<{ records: (o: string, r: object) => Promise<SealedAuditRecord[]> }>(coreRefs.auditLog.id).records(orgs.acme, {});
    const whole = [...archived.filter((r) => r.seq <= days[1].lastSeq), ...rest];
    expect(verifyRecords(whole, { startPrevHash: GENESIS_HASH })).toMatchObject({ ok: true, checked: headSeq });

    // `aerie audit verify` starts at the horizon.
    const organizations = aerie.kernel.container.resolve(orgsRefs.organizations.id) as never;
    const verify = await cli((p) => registerAuditCommands(p, async () => ({ auditQuery, organizations, close: async () => {} })), ['audit', 'verify', '--org', 'acme']);
    expect(verify.exitCode, verify.out).toBe(0);
    expect(verify.out).toMatch(/^OK org acme/);

    // GET /verify/{logId} of the first remaining record links to the signed horizon.
    const [first] = rest;
    const token = await aerie.signIn(OWNER); // a fresh session on the test clock
    const res = await aerie.request('GET', `/api/v1/admin/audit/verify/${first.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, seq: days[1].lastSeq + 1, link: { ok: true, expected: days[1].headHash }, horizon: { throughSeq: days[1].lastSeq, day: DAY2, ok: true } });

    expect((await aerie.request('GET', '/api/v1/admin/audit/retention?orgSlug=acme', { token })).body.purgeHorizon)
      .toMatchObject({ throughSeq: days[1].lastSeq, day: DAY2, purgedRows: days[1].lastSeq });
  });

  it('a rewritten remaining hot row, or a forged horizon, is still detected', async () => {
    const rest = await auditQuery.verifyChain(orgs.acme);
    const target = rest.horizon!.throughSeq + 2;
    const [row] = await aerie.sql(`select business_data::text as data from core.audit_events where org_id = ? and seq = ?`, [orgs.acme, target]);
    await aerie.sql(`update core.audit_events set business_data = '{"label":"forged","i":0}'::jsonb where org_id = ? and seq = ?`, [orgs.acme, target]);
    expect(await auditQuery.verifyChain(orgs.acme)).toMatchObject({ ok: false, firstBroken: { seq: target, reason: 'payload_hash_mismatch' } });
    await aerie.sql(`update core.audit_events set business_data = ?::jsonb where org_id = ? and seq = ?`, [row.data, orgs.acme, target]);
    expect((await auditQuery.verifyChain(orgs.acme)).ok).toBe(true);

    const [horizon] = await aerie.sql(`select chain_hash as "chainHash" from audit.purge_horizons where org_id = ?`, [orgs.acme]);
    await aerie.sql(`update audit.purge_horizons set chain_hash = ? where org_id = ?`, ['0'.repeat(64), orgs.acme]);
    expect(await auditQuery.verifyChain(orgs.acme)).toMatchObject({ ok: false, firstBroken: { reason: 'horizon_invalid' } });
    await aerie.sql(`update audit.purge_horizons set chain_hash = ? where org_id = ?`, [horizon.chainHash, orgs.acme]);
  });

  it('the daily schedule (00:35 UTC) runs the enforcement', async () => {
    expect(await aerie.sql(`select cron, timezone from core_jobs.schedule where name = ?`, [RETENTION_JOB])).toEqual([{ cron: '35 0 * * *', timezone: 'UTC' }]);
    await aerie.runSchedule(RETENTION_JOB);
    expect(notices(OWNER).length).toBeGreaterThanOrEqual(2);
  });
});

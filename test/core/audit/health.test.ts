import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { TestAerie } from '../../helpers/harness.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';

/** Polls `check` every 100 ms until it returns true or `ms` pass. */
async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('audit health: /readyz tells the truth about the sealer, dead letters are visible to platform administrators', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  let admin: string;
  let member: string;
  const orgId = randomUUID();
  beforeAll(async () => {
    aerie = await TestAerie.start({ env: { AERIE_PLATFORM_ADMINS: 'admin@example.com' } });
    audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    admin = await aerie.signIn('admin@example.com');
    member = await aerie.signIn('someone@example.com');
  });
  afterAll(() => aerie?.close());

  const ready = () => aerie.request('GET', '/readyz');

  it('reports no lag, no dead letters and a healthy sealer at rest', async () => {
    await aerie.kernel.auditSealer.drain();
    const res = await ready();
    expect(res.status).toBe(200);
    expect(res.body.audit).toEqual({
      sealerLagSeconds: 0, oldestUnsealedAt: null, deadLetters: 0,
      sealer: { state: 'ok', consecutiveFailures: 0, lastError: null, lastFailureAt: null, lastSuccessAt: expect.any(String) },
    });
  });

  it('shows a stalled sealer within seconds: state failing, the lag of the oldest unsealed event, and stays ready', async () => {
    await aerie.sql(`alter table core.audit_events add constraint test_refuse_all check (false) not valid`);
    try {
      await aerie.kernel.db.transaction((trx) => audit.append(trx, { orgId, eventType: 'test.waiting' }));
      await aerie.sql(`update core.audit_outbox set enqueued_at = now() - interval '42 seconds' where org_id = ?`, [orgId]);
      await eventually(async () => (await ready()).body.audit.sealer.state === 'failing');
      const res = await ready();
      expect(res.status).toBe(200);
      expect(res.body.audit.sealerLagSeconds).toBeGreaterThanOrEqual(42);
      expect(res.body.audit.oldestUnsealedAt).toEqual(expect.any(String));
      expect(res.body.audit.sealer).toMatchObject({ consecutiveFailures: expect.any(Number), lastError: expect.stringMatching(/test_refuse_all/) });
    } finally {
      await aerie.sql(`alter table core.audit_events drop constraint test_refuse_all`);
    }
    await aerie.kernel.auditSealer.drain();
    expect((await ready()).body.audit).toMatchObject({ sealerLagSeconds: 0, sealer: { state: 'ok', consecutiveFailures: 0 } });
  });

  it('counts a dead-lettered event in /readyz and lists it for platform administrators only', async () => {
    const id = randomUUID();
    await aerie.sql(`insert into core.audit_outbox (id, org_id, event_type, occurred_at, actor_type, actor_id, business_data)
      values (?, ?, 'test.poison', now(), 'robot', 'r2', '{"note":"x"}')`, [id, orgId]);
    await aerie.kernel.auditSealer.drain();
    expect((await ready()).body.audit.deadLetters).toBe(1);

    const list = await aerie.request('GET', '/api/v1/admin/audit/dead-letters?limit=10', { token: admin });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      items: [{
        position: expect.stringMatching(/^\d+$/), id, orgId, eventType: 'test.poison', occurredAt: expect.any(String), actor: { type: 'robot', id: 'r2' },
        appGroupId: null, businessDataJson: '{"note": "x"}', businessDataTruncated: false, enqueuedAt: expect.any(String),
        reason: expect.stringMatching(/actor must be/), deadAt: expect.any(String),
      }],
      nextCursor: null,
    });
    expect((await aerie.request('GET', `/api/v1/admin/audit/dead-letters?orgId=${randomUUID()}`, { token: admin })).body.items).toEqual([]);
    expect((await aerie.request('GET', `/api/v1/admin/audit/dead-letters?after=${list.body.items[0].position}`, { token: admin })).body.items).toEqual([]);
    expect((await aerie.request('GET', '/api/v1/admin/audit/dead-letters', { token: member })).status).toBe(403);
    expect((await aerie.request('GET', '/api/v1/admin/audit/dead-letters')).status).toBe(401);
    expect((await aerie.request('GET', '/api/v1/admin/audit/dead-letters?limit=201', { token: admin })).status).toBe(400);
  });

  it('shuts down cleanly while the sealer is failing', async () => {
    await aerie.sql(`alter table core.audit_events add constraint test_refuse_all check (false) not valid`);
    await aerie.kernel.db.transaction((trx) => audit.append(trx, { orgId, eventType: 'test.at_shutdown' }));
    await eventually(async () => (await ready()).body.audit.sealer.state === 'failing');
    const closing = aerie.close();
    await expect(closing).resolves.toBeUndefined();
    aerie = undefined as never;
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { TestAerie } from '../../helpers/harness.ts';
import { startQuietAudit } from './quiet-audit.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';

describe('core.audit appendMany: one statement, the outbox holds exactly the events', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  beforeAll(async () => {
    ({ aerie, audit } = await startQuietAudit());
  });
  afterAll(() => aerie?.close());

  it('stores every column as given, in the array order', async () => {
    const orgId = randomUUID();
    const at = new Date('2026-10-16T08:30:00.123Z');
    const nested = { s: 'ünïcødé ✓ 𝄞 "q" \\ \n', n: [1, 2.5, -0, 1e21, null, true], deep: { a: { b: { c: [] } } }, empty: {} };
    const { ids } = await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, [
      { orgId, eventType: 'test.first', occurredAt: at, actor: { type: 'account', id: 'acc_1' }, appGroupId: 'ag_1', businessData: nested },
      { orgId, eventType: 'test.second', occurredAt: at },
      { orgId, eventType: 'test.third', actor: { type: 'apiKey', id: 'key_1' }, businessData: { x: 1 } },
    ]));
    const rows = await aerie.sql(
      `select id, org_id, event_type, to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
              actor_type, actor_id, app_group_id, business_data::text as data
       from core.audit_outbox where org_id = ? order by position`, [orgId]);
    expect(rows.map((r: any) => r.id)).toEqual(ids);
    expect(rows[0]).toMatchObject({ org_id: orgId, event_type: 'test.first', at: '2026-10-16T08:30:00.123Z', actor_type: 'account', actor_id: 'acc_1', app_group_id: 'ag_1' });
    expect(JSON.parse(rows[0].data)).toEqual(JSON.parse(JSON.stringify(nested)));
    expect(rows[1]).toMatchObject({ event_type: 'test.second', actor_type: 'system', actor_id: 'system', app_group_id: null, data: '{}' });
    expect(rows[2]).toMatchObject({ event_type: 'test.third', actor_type: 'apiKey', actor_id: 'key_1', app_group_id: null, data: '{"x": 1}' });
  });

  it('keeps the positions of a large batch in the array order', async () => {
    const orgId = randomUUID();
    const { ids } = await aerie.kernel.db.transaction((trx) =>
      audit.appendMany(trx, Array.from({ length: 1500 }, (_, i) => ({ orgId, eventType: 'test.bulk', businessData: { i } }))));
    const rows = await aerie.sql(`select id, (business_data->>'i')::int as i from core.audit_outbox where org_id = ? order by position`, [orgId]);
    expect(rows.map((r: any) => r.id)).toEqual(ids);
    expect(rows.map((r: any) => r.i)).toEqual(Array.from({ length: 1500 }, (_, i) => i));
  });

  it('rejects an event without orgId and writes nothing of its batch', async () => {
    const orgId = randomUUID();
    await expect(aerie.kernel.db.transaction((trx) =>
      audit.appendMany(trx, [{ orgId, eventType: 'test.ok' }, { orgId: '', eventType: 'test.bad' }]))).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED', fields: { field: 'events[1].orgId' } });
    expect(await aerie.sql('select count(*)::int as n from core.audit_outbox where org_id = ?', [orgId])).toEqual([{ n: 0 }]);
  });
});

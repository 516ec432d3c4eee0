import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { CryptoService } from '../../../core/crypto/index.ts';
import { AuditCheckpointer } from '../../../core/audit/checkpointer.ts';
import { auditJwks, loadOrCreateAuditKey } from '../../../core/audit/platform-audit-key.ts';
import { verifyCheckpoint } from '../../../core/audit/chain/index.ts';

describe('core.audit checkpoints: one platform key, heads signed at most every interval per organization', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2026-11-01T00:00:00.000Z'));
  beforeAll(async () => { aerie = await TestAerie.start({ plugins: ['accounts', 'orgs'] }); });
  afterAll(() => aerie?.close());

  it('creates the key once (concurrent callers agree) and keeps it envelope-encrypted', async () => {
    const crypto = aerie.kernel.container.resolve<CryptoService>(coreRefs.crypto.id);
    const keys = await Promise.all([1, 2, 3].map(() => loadOrCreateAuditKey(aerie.kernel.db.knex, crypto.envelope)));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    expect((await auditJwks(aerie.kernel.db.knex)).keys).toHaveLength(1);
  });

  it('signs the first head at once, holds later ones until the interval passed or flush()', async () => {
    const crypto = aerie.kernel.container.resolve<CryptoService>(coreRefs.crypto.id);
    const cp = new AuditCheckpointer(aerie.kernel.db.knex, clock, () => loadOrCreateAuditKey(aerie.kernel.db.knex, crypto.envelope), pino({ level: 'silent' }), 5000);
    const orgId = randomUUID();
    const head = (seq: number) => ({ orgId, seq, chainHash: seq.toString(16).padStart(64, '0'), sealedAt: clock.now().toISOString() });
    const count = async () => (await aerie.sql(`select count(*)::int as n from core.audit_checkpoints where org_id = ?`, [orgId]))[0].n;
    await cp.onSealed([head(1)]);
    expect(await count()).toBe(1);
    await cp.onSealed([head(2)]);
    await cp.onSealed([head(3)]);
    expect(await count()).toBe(1);
    clock.advance(5);
    await cp.onSealed([head(4)]);
    expect(await count()).toBe(2);
    await cp.onSealed([head(5)]);
    expect(await cp.flush()).toBe(1);
    const rows = await aerie.sql(`select seq::int as seq, jws from core.audit_checkpoints where org_id = ? order by seq`, [orgId]);
    expect(rows.map((r) => r.seq)).toEqual([1, 4, 5]);
    const claims = await verifyCheckpoint(rows[2].jws, await auditJwks(aerie.kernel.db.knex));
    expect(claims).toMatchObject({ orgId, seq: 5 });
    await cp.close();
  });
});

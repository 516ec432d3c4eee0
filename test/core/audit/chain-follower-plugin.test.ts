import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { coreRefs, type AuditService, type Database } from '../../../core/index.ts';
import { TestAerie } from '../../helpers/harness.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/chain-demo', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../../fixtures/chain-demo/chain-demo/index.ts', import.meta.url));
const DOCS = fileURLToPath(new URL('../../../docs/plugins.md', import.meta.url));

/**
 * The example of docs/plugins.md "Following the sealed chains", run: a partner plugin loaded
 * through `AERIE_PLUGIN_PATHS` follows the sealed chains with `ChainFollower` (claim, then send in
 * lanes) and forwards every record of every organization once.
 */
describe('ChainFollower in a partner plugin (the docs example)', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['chain-demo'], env: { AERIE_PLUGIN_PATHS: FIXTURE } });
  });
  afterAll(() => aerie?.close());

  const append = async (orgId: string, n: number, eventType: string) => {
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    const db = aerie.kernel.container.resolve<Database>(coreRefs.db.id);
    await db.transaction((trx) => audit.appendMany(trx, Array.from({ length: n }, (_, i) => ({ orgId, eventType, businessData: { i } }))));
  };
  const forwarded = (orgId: string) =>
    aerie.sql<{ seq: number; event_type: string }>('select seq::int as seq, event_type from chain_demo.forwarded where org_id = ? order by seq', [orgId]);
  const eventually = async (check: () => Promise<boolean>) => {
    for (const until = Date.now() + 20_000; !(await check());) {
      if (Date.now() > until) throw new Error('the follower did not catch up in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('forwards every sealed record of every organization once, in batches of 100, as the chains grow', async () => {
    const [acme, globex] = [randomUUID(), randomUUID()];
    await append(acme, 250, 'demo.thing.done');
    await append(globex, 3, 'demo.other.done');
    await aerie.kernel.auditSealer!.drain();
    await eventually(async () => (await forwarded(acme)).length === 250 && (await forwarded(globex)).length === 3);
    expect(await forwarded(acme)).toEqual(Array.from({ length: 250 }, (_, i) => ({ seq: i + 1, event_type: 'demo.thing.done' })));
    expect(await forwarded(globex)).toEqual([1, 2, 3].map((seq) => ({ seq, event_type: 'demo.other.done' })));

    await append(acme, 2, 'demo.thing.later');
    await aerie.kernel.auditSealer!.drain();
    await eventually(async () => (await forwarded(acme)).length === 252);
    expect((await forwarded(acme)).slice(250)).toEqual([{ seq: 251, event_type: 'demo.thing.later' }, { seq: 252, event_type: 'demo.thing.later' }]);
    expect(await aerie.sql('select org_id, seq::int as seq from chain_demo.cursors order by seq')).toEqual([{ org_id: globex, seq: 3 }, { org_id: acme, seq: 252 }]);
  });

  it('docs/plugins.md shows the fixture\'s code verbatim', () => {
    const lines = readFileSync(PLUGIN, 'utf8').split('\n');
    const region = lines.slice(lines.findIndex((l) => l.includes('// docs:begin')) + 1, lines.findIndex((l) => l.includes('// docs:end')));
    const example = region.map((l) => l.slice(2)).join('\n');
    expect(example.length).toBeGreaterThan(500);
    expect(readFileSync(DOCS, 'utf8')).toContain(`\`\`\`ts\n${example}\n\`\`\``);
  });
});

import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { ChainFollower, type ChainClaim } from '../../../core/audit/chain-follower.ts';
import { AUDIT_SEALED_EVENT } from '../../../core/audit/audit-sealed-event.ts';
import type { AuditLog } from '../../../core/audit/audit-log.types.ts';
import { EventBus } from '../../../core/events.ts';

const silent = pino({ level: 'silent' });
const tick = () => new Promise<void>((r) => setTimeout(r, 5));
async function until(check: () => boolean, label: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await tick();
  if (!check()) throw new Error(`timed out waiting for ${label}`);
}

/**
 * An in-memory chain per organization with a cursor each, followed by a claiming ChainFollower: a
 * claim takes `batch` positions and answers one send per position and lane; `gate(orgId)` decides
 * when a send finishes.
 */
function chains(heads: Record<string, number>, options: { batch: number; lanes: string[]; concurrency: number; maxQueuedPerOrg: number }) {
  const cursors = new Map<string, number>();
  const log: string[] = [];
  const sent: string[] = [];
  const active = new Map<string, number>();
  let maxActive = 0;
  const gates = new Map<string, { open: boolean; waiting: Array<() => void> }>();
  const gate = (orgId: string) => gates.get(orgId) ?? gates.set(orgId, { open: true, waiting: [] }).get(orgId)!;
  const auditLog = { heads: async () => Object.entries(heads).map(([orgId, seq]) => ({ orgId, seq })) } as unknown as AuditLog;
  const follower = new ChainFollower({
    auditLog, logger: silent, pollMs: 60_000, what: 'test',
    select: async (hs) => hs.filter((h) => h.seq > (cursors.get(h.orgId) ?? 0)).map((h) => ({ orgId: h.orgId, from: cursors.get(h.orgId) ?? 0 })),
    claim: async ({ orgId, from }): Promise<ChainClaim> => {
      await tick();
      const to = Math.min(from + options.batch, heads[orgId]!);
      cursors.set(orgId, to);
      log.push(`claimed ${orgId} ${from + 1}-${to}`);
      const sends = [];
      for (let seq = from + 1; seq <= to; seq++) {
        for (const lane of options.lanes) {
          sends.push({
            lane, send: async () => {
              const key = `${orgId}/${lane}`;
              log.push(`send ${orgId} ${lane} ${seq}`);
              active.set(key, (active.get(key) ?? 0) + 1);
              maxActive = Math.max(maxActive, active.get(key)!);
              const g = gate(orgId);
              await tick();
              if (!g.open) await new Promise<void>((r) => g.waiting.push(r));
              active.set(key, active.get(key)! - 1);
              sent.push(`${orgId} ${lane} ${seq}`);
            },
          });
        }
      }
      return { sends, more: to - from === options.batch };
    },
    lanes: { concurrency: options.concurrency, maxQueuedPerOrg: options.maxQueuedPerOrg },
  });
  return {
    follower, log, sent, cursors, maxActive: () => maxActive,
    hold: (orgId: string) => void (gate(orgId).open = false),
    release: (orgId: string) => {
      const g = gate(orgId);
      g.open = true;
      for (const r of g.waiting.splice(0)) r();
    },
  };
}

describe('ChainFollower with claim and lanes', () => {
  it('sends each claimed position once per lane, in order, at most `concurrency` at once, each only after its claim; a full batch is claimed again at once', async () => {
    const c = chains({ a: 10, b: 4 }, { batch: 3, lanes: ['x', 'y'], concurrency: 2, maxQueuedPerOrg: 1_000 });
    await c.follower.drain();
    for (const [org, head] of [['a', 10], ['b', 4]] as const) {
      for (const lane of ['x', 'y']) {
        expect(c.sent.filter((s) => s.startsWith(`${org} ${lane} `))).toEqual(Array.from({ length: head }, (_, i) => `${org} ${lane} ${i + 1}`));
      }
    }
    expect(c.maxActive()).toBe(2);
    for (const entry of c.log.filter((l) => l.startsWith('send '))) {
      const [, org, , seq] = entry.split(' ');
      const claim = c.log.findIndex((l) => {
        const m = /^claimed (\w+) (\d+)-(\d+)$/.exec(l);
        return m && m[1] === org && Number(m[2]) <= Number(seq) && Number(seq) <= Number(m[3]);
      });
      expect(claim).toBeGreaterThanOrEqual(0);
      expect(claim).toBeLessThan(c.log.indexOf(entry));
    }
    // Organizations take turns a batch at a time; a short batch ends the organization's claims.
    expect(c.log.filter((l) => l.startsWith('claimed'))).toEqual(['claimed a 1-3', 'claimed b 1-3', 'claimed a 4-6', 'claimed b 4-4', 'claimed a 7-9', 'claimed a 10-10']);
  });

  it('an organization whose sends hang stops claiming at maxQueuedPerOrg and resumes once half have left; the others go on', async () => {
    const c = chains({ slow: 30, fast: 30 }, { batch: 3, lanes: ['x'], concurrency: 2, maxQueuedPerOrg: 4 });
    c.hold('slow');
    const drained = c.follower.drain();
    await until(() => c.sent.filter((s) => s.startsWith('fast ')).length === 30, 'the fast organization');
    // Two claims (6 sends) filled its room; it is skipped while they hang.
    expect(c.cursors.get('slow')).toBe(6);
    expect(c.sent.filter((s) => s.startsWith('slow '))).toEqual([]);
    c.release('slow');
    await drained;
    expect(c.sent.filter((s) => s.startsWith('slow '))).toEqual(Array.from({ length: 30 }, (_, i) => `slow x ${i + 1}`));
  });

  it('reacts to the sealing event with its heads; stop() waits for the running sends and leaves the queued ones unsent', async () => {
    const heads = { a: 0 };
    const c = chains(heads, { batch: 10, lanes: ['x'], concurrency: 1, maxQueuedPerOrg: 100 });
    const events = new EventBus();
    c.follower.start(events);
    c.hold('a');
    heads.a = 5;
    events.emit({ type: AUDIT_SEALED_EVENT, payload: { heads: [{ orgId: 'a', seq: 5 }] } });
    await until(() => c.log.includes('send a x 1'), 'the first send');
    const stopped = c.follower.stop();
    c.release('a');
    await stopped;
    await tick();
    expect(c.sent).toEqual(['a x 1']);
    expect(c.log.filter((l) => l.startsWith('send '))).toEqual(['send a x 1']);
  });

  it('a poll reads the heads through pollHeads when given, not every organization\'s', async () => {
    const auditLog = { heads: async () => { throw new Error('every head read'); } } as unknown as AuditLog;
    const seen: string[][] = [];
    const follower = new ChainFollower({
      auditLog, logger: silent, pollMs: 60_000, what: 'test',
      pollHeads: async () => [{ orgId: 'mine', seq: 3 }],
      select: async (heads) => (seen.push(heads.map((h) => `${h.orgId}@${h.seq}`)), []),
      work: async () => {},
    });
    await follower.drain();
    expect(seen).toEqual([['mine@3']]);
  });

  it('refuses lanes without a positive integer concurrency or room', () => {
    const base = { auditLog: {} as AuditLog, logger: silent, pollMs: 1_000, what: 'test', select: async () => [], claim: async () => ({ sends: [], more: false }) };
    expect(() => new ChainFollower({ ...base, lanes: { concurrency: 0, maxQueuedPerOrg: 10 } })).toThrow(RangeError);
    expect(() => new ChainFollower({ ...base, lanes: { concurrency: 2, maxQueuedPerOrg: 1.5 } })).toThrow(RangeError);
  });
});

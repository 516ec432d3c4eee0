import { describe, expect, it } from 'vitest';
import {
  parseScope,
  PermissionSet,
  scopeGrants,
  ScopeSyntaxError,
  type ScopeContext,
} from '../../../core/authz/index.ts';

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASES = [
  'org.project.read', 'org.project.list', 'org.project.member.add', 'org.meeting.read', 'view.business',
  'org.audit_event_log.list', 'org.device_identity.device_binding.update', 'org.projects.read',
  'org.project.*', 'org.*', 'org.device_identity.*', '*', 'view.*',
];
const KEYS = ['project', 'meeting', 'system', 'actor', 'team'];
const VALUES = ['P1', 'P2', '*', 'self', 'U1', 'U2', 'payment', 'agent'];
const CONTEXTS: Array<ScopeContext | undefined> = [
  undefined, { principalId: 'U1' }, { principalId: 'U1', actorId: 'U1' }, { actorId: 'U2' }, { principalId: 'U2', actorId: 'U1' },
];

function randomScope(next: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const base = pick(BASES);
  const n = Math.floor(next() * next() * 4); // mostly 0 or 1 constraint
  const keys = [...new Set(Array.from({ length: n }, () => pick(KEYS)))];
  if (keys.length === 0) return base;
  return `${base}:${keys.map((k) => `${k}${next() < 0.8 ? '=' : '!='}${pick(VALUES)}`).join(',')}`;
}

describe('PermissionSet agrees with scopeGrants on random cases', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i', (seed) => {
    const next = rng(seed);
    const answers = { true: 0, false: 0 };
    const mismatches: string[] = [];
    for (let round = 0; round < 60; round++) {
      const held = Array.from({ length: Math.floor(next() * 12) }, () => randomScope(next));
      const perms = new PermissionSet(held);
      for (let q = 0; q < 40; q++) {
        // a third of the queries reuse a held text so that positives are common
        const required = held.length > 0 && next() < 0.33 ? held[Math.floor(next() * held.length)] : randomScope(next);
        const context = CONTEXTS[Math.floor(next() * CONTEXTS.length)];
        const expected = held.some((h) => scopeGrants(h, required, context));
        // twice by text (the second may be answered from the cache), once parsed
        const got = [perms.has(required, context), perms.has(required, context), perms.has(parseScope(required), context)];
        if (got.some((g) => g !== expected)) {
          mismatches.push(`${JSON.stringify(held)} has ${required} ${JSON.stringify(context)}: ${got} ≠ ${expected}`);
        }
        answers[`${expected}`]++;
      }
    }
    expect(mismatches).toEqual([]);
    // the generator must exercise both answers, or the comparison proves nothing
    expect(answers.true).toBeGreaterThan(200);
    expect(answers.false).toBeGreaterThan(200);
  });
});

describe('PermissionSet.has', () => {
  const perms = new PermissionSet([
    'org.project.read:project=P1',
    'org.project.list:project=*',
    'org.meeting.*',
    'org.audit_event_log.list:actor=self',
    'org.audit_event_log.list_system:system!=payment',
    'view.business',
  ]);
  it.each<[string, ScopeContext | undefined, boolean]>([
    ['org.project.read:project=P1', undefined, true],
    ['org.project.read:project=P2', undefined, false],
    ['org.project.read', undefined, false],
    ['org.project.list:project=*', undefined, false],
    ['org.project.list:project=P1', undefined, false],
    ['org.meeting.read:meeting=M1', undefined, true],
    ['org.meeting.list', undefined, true],
    ['org.meetings.list', undefined, false],
    ['org.audit_event_log.list:actor=self', undefined, true],
    ['org.audit_event_log.list', { principalId: 'U1', actorId: 'U1' }, true],
    ['org.audit_event_log.list', undefined, false],
    ['org.audit_event_log.list_system:system=agent', undefined, true],
    ['org.audit_event_log.list_system:system=payment', undefined, false],
    ['view.business', undefined, true],
    ['view.*', undefined, false],
  ])('%s with %j → %s', (required, context, expected) => {
    expect(perms.has(required, context)).toBe(expected);
  });

  it('does not reuse a context-free answer for a call with a context', () => {
    const set = new PermissionSet(['org.audit_event_log.list:actor=self']);
    expect(set.has('org.audit_event_log.list')).toBe(false);
    expect(set.has('org.audit_event_log.list', { principalId: 'U1', actorId: 'U1' })).toBe(true);
    expect(set.has('org.audit_event_log.list')).toBe(false);
  });

  it('throws INVALID_SCOPE on a malformed held or required text', () => {
    expect(() => new PermissionSet(['org'])).toThrow(ScopeSyntaxError);
    expect(() => perms.has('org.project.read:')).toThrow(ScopeSyntaxError);
  });
});

describe('PermissionSet.union and toArray', () => {
  it('returns canonical, de-duplicated texts in first-seen order', () => {
    const set = new PermissionSet(['x.y.z:b=2,a=1', 'org.project.read', 'x.y.z:a=1,b=2', 'org.project.list:project=*']);
    expect(set.toArray()).toEqual(['x.y.z:a=1,b=2', 'org.project.read', 'org.project.list:project=*']);
    expect(set.size).toBe(3);
  });

  it('union holds the grants of both and leaves both operands unchanged', () => {
    const a = new PermissionSet(['org.project.read:project=P1']);
    const b = new PermissionSet(['org.meeting.read', 'org.project.read:project=P1']);
    const u = a.union(b).union(['view.business']);
    expect(u.toArray()).toEqual(['org.project.read:project=P1', 'org.meeting.read', 'view.business']);
    expect(u.has('org.meeting.read')).toBe(true);
    expect(u.has('view.business')).toBe(true);
    expect(a.has('org.meeting.read')).toBe(false);
    expect(b.has('view.business')).toBe(false);
  });

  it('an empty set holds nothing', () => {
    const empty = new PermissionSet();
    expect(empty.toArray()).toEqual([]);
    expect(empty.has('view.business')).toBe(false);
  });
});

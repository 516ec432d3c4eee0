import { describe, expect, it } from 'vitest';
import { findCycle, indexReporting } from '../../../plugins/teams/cycles.ts';

describe('teams: findCycle (reporting edges person → manager)', () => {
  it.each([
    ['no edges, a new line', [], ['a', 'b'], null],
    ['a self line', [], ['a', 'a'], ['a', 'a']],
    ['the reverse of an existing line', [['b', 'a']], ['a', 'b'], ['a', 'b', 'a']],
    ['a line closing a chain', [['b', 'c'], ['c', 'a']], ['a', 'b'], ['a', 'b', 'c', 'a']],
    ['a second manager, no cycle', [['a', 'b'], ['b', 'c']], ['a', 'c'], null],
    ['a diamond, no cycle', [['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd']], ['e', 'a'], null],
    ['the shortest of two cycles', [['b', 'x'], ['x', 'y'], ['y', 'a'], ['b', 'a']], ['a', 'b'], ['a', 'b', 'a']],
    ['duplicate edges (manual and automatic)', [['b', 'a'], ['b', 'a']], ['a', 'b'], ['a', 'b', 'a']],
    ['a cycle elsewhere is not this one', [['x', 'y']], ['a', 'b'], null],
  ] as Array<[string, Array<[string, string]>, [string, string], string[] | null]>)('%s', (_label, edges, [s, t], expected) => {
    expect(findCycle(indexReporting(edges), s, t)).toEqual(expected);
  });
});

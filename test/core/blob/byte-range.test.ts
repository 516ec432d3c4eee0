import { describe, expect, it } from 'vitest';
import { byteRange } from '../../../core/blob/byte-range.ts';

describe('core.blob: the Range header of an embedded download', () => {
  it.each([
    ['bytes=10-19', { start: 10, end: 19 }], ['bytes=90-', { start: 90, end: 99 }], ['bytes=-5', { start: 95, end: 99 }],
    ['bytes=-500', { start: 0, end: 99 }], ['bytes=50-500', { start: 50, end: 99 }], ['bytes=100-', 'unsatisfiable'], ['bytes=-0', 'unsatisfiable'],
    [undefined, undefined], ['bytes=1-2,5-6', undefined], ['items=1-2', undefined], ['bytes=5-1', undefined], ['bytes=-', undefined], ['bytes=x-1', undefined],
  ] as const)('%s of 100 bytes: %j', (header, range) => {
    expect(byteRange(header, 100)).toEqual(range);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BlobTooLargeError } from '../../../core/blob/blob.types.ts';
import { BlockCollector, BlockPool } from '../../../core/blob/blocks.ts';

/** `data` in pieces of `size` bytes. */
const pieces = (data: Buffer, size: number) => Readable.from(Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size)));

describe('core.blob: BlockCollector', () => {
  it.each([[1000, 1], [1000, 7], [1000, 1000], [1000, 3001], [64, 5000]])('collects a body across blocks of %i bytes from pieces of %i: bytes, size and SHA-256', async (blockSize, pieceSize) => {
    const data = randomBytes(10_000);
    const collector = new BlockCollector(new BlockPool(blockSize, 4), 20_000);
    await pipeline(pieces(data, pieceSize), collector);
    expect(Buffer.concat(collector.chunks()).equals(data)).toBe(true);
    expect(collector.size).toBe(data.length);
    expect(collector.sha256()).toBe(createHash('sha256').update(data).digest('hex'));
    collector.release();
  });

  it('fails past maxBytes with BlobTooLargeError', async () => {
    const collector = new BlockCollector(new BlockPool(1000, 4), 9_999);
    await expect(pipeline(pieces(randomBytes(10_000), 999), collector)).rejects.toBeInstanceOf(BlobTooLargeError);
    collector.release();
  });

  it('reuses released blocks, keeping at most `keep` idle, and a later body reads its own bytes', async () => {
    const pool = new BlockPool(1000, 2);
    const first = new BlockCollector(pool, 10_000);
    await pipeline(pieces(Buffer.alloc(3000, 1), 500), first);
    const used = first.chunks().map((c) => c.buffer);
    first.release();
    const second = new BlockCollector(pool, 10_000);
    const data = randomBytes(2500);
    await pipeline(pieces(data, 300), second);
    const reused = second.chunks().filter((c) => used.includes(c.buffer));
    expect(reused).toHaveLength(2);
    expect(Buffer.concat(second.chunks()).equals(data)).toBe(true);
    second.release();
  });

  it('an empty body has no chunks', async () => {
    const collector = new BlockCollector(new BlockPool(1000, 2), 10);
    await pipeline(Readable.from([]), collector);
    expect(Buffer.concat(collector.chunks()).length).toBe(0);
    expect(collector.sha256()).toBe(createHash('sha256').digest('hex'));
  });
});

describe('core.blob: BlockPool', () => {
  afterEach(() => vi.useRealTimers());

  it('lets its idle blocks go once none was taken for idleMs', () => {
    vi.useFakeTimers();
    const pool = new BlockPool(16, 8, 50);
    pool.give([pool.take(), pool.take()]);
    expect(pool.idleCount).toBe(2);
    vi.advanceTimersByTime(30);
    pool.give([pool.take()]); // taken again: the quiet time starts over
    vi.advanceTimersByTime(30);
    expect(pool.idleCount).toBe(2);
    vi.advanceTimersByTime(30);
    expect(pool.idleCount).toBe(0);
  });
});

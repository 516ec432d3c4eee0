import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { BlobTooLargeError } from './blob.types.ts';

/**
 * Fixed-size buffers kept for reuse, at most `keep` idle. A body collected into them leaves the
 * buffers the socket delivered it in free to die young (a scavenge frees them); held until the
 * object is stored they would be promoted and wait for full collections — which is what made the
 * S3 driver's uploads spend a third of their CPU time collecting garbage (bench/files.ts).
 */
export class BlockPool {
  private readonly idle: Buffer[] = [];

  constructor(readonly blockSize: number, private readonly keep: number) {}

  /** An idle block, or a new one. Its contents are whatever was there. */
  take(): Buffer {
    return this.idle.pop() ?? Buffer.allocUnsafeSlow(this.blockSize);
  }

  /** Hands `blocks` back (past `keep` idle ones they are left to the garbage collector). Nothing may use them afterwards. */
  give(blocks: Buffer[]): void {
    for (const block of blocks) if (this.idle.length < this.keep) this.idle.push(block);
  }
}

/**
 * A sink that counts, hashes and copies what is written into blocks of `pool`, failing with
 * BlobTooLargeError once more than `maxBytes` arrived. After it finished, `size`, `sha256()` and
 * `chunks()` describe the whole body; `release()` returns the blocks (always call it, also on failure).
 */
export class BlockCollector extends Writable {
  size = 0;
  private readonly hash = createHash('sha256');
  private readonly blocks: Buffer[] = [];
  private fill = 0;
  private digest?: string;

  constructor(private readonly pool: BlockPool, private readonly maxBytes: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(new BlobTooLargeError(this.maxBytes));
    this.hash.update(chunk);
    let offset = 0;
    while (offset < chunk.length) {
      if (this.blocks.length === 0 || this.fill === this.pool.blockSize) {
        this.blocks.push(this.pool.take());
        this.fill = 0;
      }
      const copied = chunk.copy(this.blocks[this.blocks.length - 1]!, this.fill, offset);
      this.fill += copied;
      offset += copied;
    }
    done();
  }

  /** Lowercase hex SHA-256 of the body (call after the stream finished). */
  sha256(): string {
    this.digest ??= this.hash.digest('hex');
    return this.digest;
  }

  /** The body as views of the blocks, in order (valid until {@link release}). */
  chunks(): Buffer[] {
    return this.blocks.map((block, i) => (i === this.blocks.length - 1 ? block.subarray(0, this.fill) : block));
  }

  /** Returns the blocks to the pool; the views of {@link chunks} must no longer be used. */
  release(): void {
    this.pool.give(this.blocks.splice(0));
    this.fill = 0;
  }
}

import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { BlobTooLargeError } from './blob.types.ts';

/**
 * Fixed-size buffers kept for reuse: at most `keep` idle, and none once no block was taken for
 * `idleMs` (a burst of uploads does not hold its memory for good). A body collected into them
 * leaves the buffers the socket delivered it in free to die young (a scavenge frees them); held
 * until the object is stored they were promoted and freed only by full collections, and new blocks
 * per body would be too — garbage collection took a quarter of the S3 driver's upload CPU time
 * that way (bench/files.ts).
 */
export class BlockPool {
  private readonly idle: Buffer[] = [];
  private lastTake = 0;
  private trim?: NodeJS.Timeout;

  constructor(readonly blockSize: number, private readonly keep: number, private readonly idleMs = 30_000) {}

  /** An idle block, or a new one. Its contents are whatever was there. */
  take(): Buffer {
    this.lastTake = Date.now();
    return this.idle.pop() ?? Buffer.allocUnsafeSlow(this.blockSize);
  }

  /** Hands `blocks` back (past `keep` idle ones they are left to the garbage collector). Nothing may use them afterwards. */
  give(blocks: Buffer[]): void {
    for (const block of blocks) if (this.idle.length < this.keep) this.idle.push(block);
    if (this.idle.length > 0 && !this.trim) this.scheduleTrim(this.idleMs);
  }

  /** Blocks kept idle now. */
  get idleCount(): number {
    return this.idle.length;
  }

  private scheduleTrim(delayMs: number): void {
    this.trim = setTimeout(() => {
      this.trim = undefined;
      const quietFor = Date.now() - this.lastTake;
      if (quietFor >= this.idleMs) this.idle.length = 0;
      else this.scheduleTrim(this.idleMs - quietFor);
    }, delayMs).unref();
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

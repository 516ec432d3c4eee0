import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { BlobTooLargeError } from './blob.types.ts';

/**
 * A pass-through that counts and hashes what flows through it and fails the stream once more than
 * `maxBytes` have passed. After it ends, `size` and `sha256()` describe the whole body.
 */
export class MeasuringStream extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');
  private digest?: string;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(new BlobTooLargeError(this.maxBytes));
    this.hash.update(chunk);
    done(null, chunk);
  }

  /** Lowercase hex SHA-256 of everything that passed (call after the stream ended). */
  sha256(): string {
    this.digest ??= this.hash.digest('hex');
    return this.digest;
  }
}

/** `body` as a stream. */
export function toStream(body: Readable | Buffer): Readable {
  return Buffer.isBuffer(body) ? Readable.from([body]) : body;
}

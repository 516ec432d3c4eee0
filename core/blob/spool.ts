import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { close, createReadStream, open, read, writev, type ReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { BlobTooLargeError } from './blob.types.ts';

/** Bytes read from the spool file at a time while it is sent. */
const READ_BYTES = 64 * 1024;
const openFile = promisify(open);
const closeFile = promisify(close);

/**
 * A body kept on disk instead of in memory, for a store that needs its length before its bytes:
 * `size` (bytes) and `sha256` (lowercase hex) describe it; each `stream()` reads it from the start
 * (again for a retry); `close()` stops every reader and frees the file (always call it, also when
 * sending failed or never started; no `stream()` after it).
 */
export interface SpooledBody {
  readonly size: number;
  readonly sha256: string;
  stream(): Readable;
  close(): Promise<void>;
}

/**
 * Writes `source` to a file in `dir` (default the OS's temporary folder, `TMPDIR`) as it arrives,
 * counting and hashing it on the way, so memory holds only the chunks in transit. The file is
 * unlinked as soon as it is opened: it has no name, and its space comes back when it is closed or
 * the process dies, whatever happens to the upload.
 * @throws BlobTooLargeError once more than `maxBytes` arrived (the file is already freed); the
 *   source's own error when it breaks.
 */
export async function spool(source: Readable, maxBytes: number, dir: string = tmpdir()): Promise<SpooledBody> {
  const path = join(dir, `aerie-upload-${randomUUID()}`);
  // A plain descriptor, not a FileHandle (whose own streams keep it referenced until they close it): only close() closes it.
  const fd = await openFile(path, 'wx+', 0o600);
  const writer = new SpoolWriter(fd, maxBytes);
  try {
    await rm(path);
    await pipeline(source, writer);
    return spooled(fd, writer.size, writer.hash.digest('hex'));
  } catch (err) {
    // The writer never closes the descriptor: once it is closed (no write in progress), close it here, once.
    if (!writer.closed) {
      const closed = once(writer, 'close').catch(() => undefined);
      writer.destroy();
      await closed;
    }
    await closeFile(fd);
    throw err;
  }
}

/**
 * The one stage between the source and the spool file: counts and hashes each chunk, fails past
 * `maxBytes`, and appends what it holds to `fd` with one `writev` (the rest when the file takes
 * less). Destroying it waits for a write in progress, so the descriptor can be closed after 'close'.
 */
class SpoolWriter extends Writable {
  size = 0;
  readonly hash = createHash('sha256');
  private writing = false;
  private whenWritten?: () => void;

  constructor(private readonly fd: number, private readonly maxBytes: number) {
    super();
  }

  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    const buffers = chunks.map(({ chunk }) => chunk);
    for (const buffer of buffers) {
      this.size += buffer.length;
      if (this.size > this.maxBytes) return done(new BlobTooLargeError(this.maxBytes));
      this.hash.update(buffer);
    }
    this.writing = true;
    this.append(buffers, (error) => {
      this.writing = false;
      done(error);
      this.whenWritten?.();
    });
  }

  private append(buffers: Buffer[], done: (error?: Error | null) => void): void {
    writev(this.fd, buffers, (error, written) => {
      if (error) return done(error);
      let skip = written;
      let i = 0;
      while (i < buffers.length && skip >= buffers[i]!.length) skip -= buffers[i++]!.length;
      if (i === buffers.length) done();
      else this.append([buffers[i]!.subarray(skip), ...buffers.slice(i + 1)], done);
    });
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (!this.writing) return done(error);
    this.whenWritten = () => done(error);
  }
}

function spooled(fd: number, size: number, sha256: string): SpooledBody {
  const readers: ReadStream[] = [];
  // Readers leave the descriptor open (their close is a no-op): it is shared by every attempt and closed by close() alone.
  const shared = { read, open, close: (_fd: number, done: (error: null) => void) => done(null) };
  return {
    size, sha256,
    stream: () => {
      const reader = createReadStream('', { fd, start: 0, highWaterMark: READ_BYTES, fs: shared });
      readers.push(reader);
      return reader;
    },
    close: async () => {
      // A request that failed half-way leaves its reader open: destroying it waits for a read in progress.
      await Promise.all(readers.map((reader) => {
        if (reader.closed) return undefined;
        const closed = once(reader, 'close').catch(() => undefined);
        reader.destroy();
        return closed;
      }));
      await closeFile(fd);
    },
  };
}

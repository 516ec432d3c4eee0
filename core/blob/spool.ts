import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { close, createReadStream, createWriteStream, open, type ReadStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { MeasuringStream } from './measure.ts';

/** Bytes read from the spool file at a time while it is sent (fs streams' default). */
const READ_BYTES = 64 * 1024;
const openFile = promisify(open);
const closeFile = promisify(close);

/**
 * A body kept on disk instead of in memory, for a store that needs its length before its bytes:
 * `size` (bytes) and `sha256` (lowercase hex) describe it; `stream()` reads it from the start, once;
 * `close()` frees it (always call it, also when sending failed or never started).
 */
export interface SpooledBody {
  readonly size: number;
  readonly sha256: string;
  /** @throws Error when called a second time. */
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
  // A plain descriptor, not a FileHandle: the reader closes it itself (a FileHandle's own streams keep it referenced until they close it).
  const fd = await openFile(path, 'wx+', 0o600);
  let writer: WriteStream | undefined;
  try {
    await rm(path);
    const measure = new MeasuringStream(maxBytes);
    writer = createWriteStream('', { fd, autoClose: false, start: 0 });
    await pipeline(source, measure, writer);
    return spooled(fd, measure.size, measure.sha256());
  } catch (err) {
    // A failed pipeline destroys the writer, and destroying a file stream closes its descriptor even
    // with autoClose off: wait for that, and close it here only if the writer did not. Closing it a
    // second time could close whatever file or socket was given the same number in between.
    if (writer && !writer.closed) {
      const closed = once(writer, 'close').catch(() => undefined);
      writer.destroy();
      await closed;
    }
    if (typeof (writer as { fd?: number | null } | undefined)?.fd !== 'object') await closeFile(fd);
    throw err;
  }
}

function spooled(fd: number, size: number, sha256: string): SpooledBody {
  let reader: ReadStream | undefined;
  return {
    size, sha256,
    stream: () => {
      if (reader) throw new Error('a spooled body is read once');
      // The reader owns the descriptor from now on: it closes it when it ends or is destroyed.
      reader = createReadStream('', { fd, start: 0, highWaterMark: READ_BYTES });
      return reader;
    },
    close: async () => {
      if (!reader) return closeFile(fd);
      if (reader.closed) return;
      // A request that failed half-way leaves its reader open: destroying it closes the descriptor once a read in progress ended.
      const closed = once(reader, 'close').catch(() => undefined);
      reader.destroy();
      await closed;
    },
  };
}

import { fileTypeFromBuffer } from 'file-type';
import { Readable } from 'node:stream';

/**
 * The media type `file-type` reads from the first `sampleBytes` bytes of `stream` (undefined when it
 * recognises none), and the body to store: `stream` itself with what was read put back (`unshift`),
 * so no extra stream per upload carries the bytes (`fileTypeStream` adds one); or, when the whole
 * body was shorter than the sample and has ended, those bytes as a new stream.
 * @throws the stream's error when it fails before the sample is read (or failed before this call; a
 *   stream destroyed before this call without an error throws an Error saying so).
 */
export async function sniffMediaType(stream: Readable, sampleBytes: number): Promise<{ mediaType: string | undefined; body: Readable }> {
  const { head, body } = await peek(stream, sampleBytes);
  const mediaType = head.length === 0 ? undefined : (await fileTypeFromBuffer(head.subarray(0, sampleBytes)))?.mime;
  return { mediaType, body };
}

/** The first `bytes` bytes of `stream` (fewer when it ends sooner; more when a chunk reaches past them), and the whole body, unread. */
function peek(stream: Readable, bytes: number): Promise<{ head: Buffer; body: Readable }> {
  // A stream that failed or was destroyed before this call emits nothing more: answer its error now.
  if (stream.errored) return Promise.reject(stream.errored);
  if (stream.destroyed && !stream.readableEnded) return Promise.reject(new Error('the upload stream was closed before it was read'));
  // An ended stream never emits 'readable' again.
  if (stream.readableEnded) return Promise.resolve({ head: Buffer.alloc(0), body: Readable.from([]) });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while (size < bytes && (chunk = stream.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        size += chunk.length;
      }
      if (size < bytes) return; // more to come, or 'end'
      done();
      // Put back last first, so the first chunk is read first again.
      for (let i = chunks.length - 1; i >= 0; i--) stream.unshift(chunks[i]);
      resolve({ head: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), body: stream });
    };
    // The body ended shorter than the sample, all of it read here: it cannot be put back after 'end'.
    const onEnd = () => {
      done();
      resolve({ head: Buffer.concat(chunks), body: Readable.from(chunks) });
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

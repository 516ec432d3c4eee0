import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { sniffMediaType } from '../../../plugins/files/sniff.ts';

// A PNG signature followed by filler: file-type recognises image/png from the first bytes.
const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(20_000, 7)]);

/** `data` delivered in chunks of `size` bytes, as a socket would. */
function chunked(data: Buffer, size: number): Readable {
  const stream = new PassThrough();
  (async () => {
    for (let i = 0; i < data.length; i += size) {
      stream.write(data.subarray(i, i + size));
      await new Promise((ok) => setImmediate(ok));
    }
    stream.end();
  })();
  return stream;
}

describe('files: sniffMediaType', () => {
  it.each([1, 100, 4099, 4100, 65_536])('reads the type from the first bytes and leaves every byte to read (chunks of %i)', async (size) => {
    const { mediaType, body } = await sniffMediaType(chunked(png, size), 4100);
    expect(mediaType).toBe('image/png');
    expect((await buffer(body)).equals(png)).toBe(true);
  });

  it('a body shorter than the sample comes back whole', async () => {
    const text = Buffer.from('hello, not a known format');
    const { mediaType, body } = await sniffMediaType(chunked(text, 5), 4100);
    expect(mediaType).toBeUndefined();
    expect((await buffer(body)).equals(text)).toBe(true);
  });

  it('an empty body, ended before or after the call, is empty', async () => {
    const ended = new PassThrough();
    ended.end();
    ended.resume();
    await new Promise((ok) => ended.once('end', ok));
    for (const stream of [ended, Readable.from([])]) {
      const { mediaType, body } = await sniffMediaType(stream, 4100);
      expect(mediaType).toBeUndefined();
      expect((await buffer(body)).length).toBe(0);
    }
  });

  it("fails with the stream's error when it breaks before the sample", async () => {
    const stream = new PassThrough();
    stream.write(Buffer.alloc(10));
    setImmediate(() => stream.destroy(new Error('interrupted')));
    await expect(sniffMediaType(stream, 4100)).rejects.toThrow('interrupted');
  });

  it('fails at once, never waits, for a stream that failed or was destroyed before the call', async () => {
    const failed = new PassThrough();
    failed.on('error', () => undefined);
    failed.destroy(new Error('reset before the handler read it'));
    await new Promise((ok) => setImmediate(ok));
    await expect(sniffMediaType(failed, 4100)).rejects.toThrow('reset before the handler read it');
    const closed = new PassThrough();
    closed.destroy();
    await expect(sniffMediaType(closed, 4100)).rejects.toThrow(/closed before it was read/);
  });
});

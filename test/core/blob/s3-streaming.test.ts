import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, fstatSync, mkdtempSync, openSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BlobTooLargeError } from '../../../core/blob/blob.types.ts';
import { S3BlobStore } from '../../../core/blob/s3-blob-store.ts';
import { spool } from '../../../core/blob/spool.ts';

// A local S3-compatible server that checks SigV4 signatures, so the payload hash Aerie signs is checked too.
const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as new (options: object) => { run(): Promise<{ port: number }>; close(): Promise<void> };
const BUCKET = 'aerie-stream';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const MIB = 1024 * 1024;
const FILE_BOX_LIMIT = 10 * MIB;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Bytes of Buffers alive in this process once garbage is collected. */
const liveBufferBytes = () => {
  gc();
  return process.memoryUsage().arrayBuffers;
};
/** Files of the spool folder this process holds open, named or not (Linux: `/proc/self/fd`). */
const openSpoolFiles = () => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).startsWith(spoolDir);
  } catch {
    return false; // the descriptor readdir itself used, closed since
  }
}).length;

/**
 * A body of `total` bytes made only when the reader asks for it, 64 KiB at a time, each piece a new
 * Buffer nobody else keeps: whatever of it stays in memory, the reader keeps. After every MiB it
 * records how many Buffer bytes are alive beyond `baseline` (after a full collection).
 */
function lazyBody(total: number) {
  const hash = createHash('sha256');
  const held: number[] = [];
  let produced = 0;
  let baseline = 0;
  const stream = new Readable({
    read() {
      if (produced > 0 && produced % MIB === 0) held.push(liveBufferBytes() - baseline);
      if (produced >= total) return void this.push(null);
      const piece = randomBytes(Math.min(64 * 1024, total - produced));
      hash.update(piece);
      produced += piece.length;
      this.push(piece);
    },
  });
  return {
    stream,
    start: () => (baseline = liveBufferBytes()),
    /** Most Buffer bytes held beyond the baseline at any MiB mark. */
    maxHeld: () => Math.max(...held),
    marks: () => held.length,
    sha256: () => hash.digest('hex'),
  };
}

async function read(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const s3dir = mkdtempSync(join(tmpdir(), 'aerie-s3rver-'));
const spoolDir = mkdtempSync(join(tmpdir(), 'aerie-spool-'));
let s3server: InstanceType<typeof S3rver>;
let endpoint: string;
const store = (secret = CREDENTIALS.secretAccessKey) =>
  new S3BlobStore({ bucket: BUCKET, endpoint, forcePathStyle: true, region: 'us-east-1', spoolDir, client: { credentials: { ...CREDENTIALS, secretAccessKey: secret } } });

beforeAll(async () => {
  s3server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET }] });
  endpoint = `http://127.0.0.1:${(await s3server.run()).port}`;
});
afterAll(async () => {
  await s3server?.close();
  rmSync(s3dir, { recursive: true, force: true });
  rmSync(spoolDir, { recursive: true, force: true });
});

describe('core.blob S3: uploads stream with bounded memory', () => {
  it('a 10 MiB body made as it is read is stored whole while the driver never holds more than a few chunks of it', async () => {
    const body = lazyBody(FILE_BOX_LIMIT);
    body.start();
    const info = await store().put('org/o1/files/lazy.bin', body.stream, { maxBytes: FILE_BOX_LIMIT, contentType: 'application/pdf' });
    const sha256 = body.sha256();
    expect(info).toEqual({ key: 'org/o1/files/lazy.bin', size: FILE_BOX_LIMIT, sha256, contentType: 'application/pdf' });
    // Holding the body (as the driver did before it spooled, in 1 MiB blocks) measured 10.1 MiB here.
    expect(body.marks()).toBe(10);
    expect(body.maxHeld()).toBeLessThan(2 * MIB);
    const got = await store().get('org/o1/files/lazy.bin');
    expect(got).toMatchObject({ size: FILE_BOX_LIMIT, contentType: 'application/pdf', storageClass: 'STANDARD' });
    expect(createHash('sha256').update(await read(got!.body)).digest('hex')).toBe(sha256);
    // The spool file had no name and is closed.
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(openSpoolFiles()).toBe(0);
  });

  it('the 10 MiB limit cuts a longer body as it streams: nothing stored, the spool file freed', async () => {
    const body = lazyBody(FILE_BOX_LIMIT + 64 * 1024);
    body.start();
    await expect(store().put('org/o1/files/over.bin', body.stream, { maxBytes: FILE_BOX_LIMIT })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(body.maxHeld()).toBeLessThan(2 * MIB);
    expect(await store().get('org/o1/files/over.bin')).toBeUndefined();
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(openSpoolFiles()).toBe(0);
  });

  it('a body that breaks half-way stores nothing and frees the spool file', async () => {
    let sent = 0;
    const broken = new Readable({
      read() {
        if (sent++ < 20) this.push(randomBytes(64 * 1024));
        else this.destroy(new Error('client went away'));
      },
    });
    await expect(store().put('org/o1/files/broken.bin', broken, { maxBytes: FILE_BOX_LIMIT })).rejects.toThrow('client went away');
    expect(await store().get('org/o1/files/broken.bin')).toBeUndefined();
    expect(openSpoolFiles()).toBe(0);
  });

  it('a PutObject the server refuses (wrong secret) stores nothing and frees the spool file', async () => {
    await expect(store('wrong').put('org/o1/files/refused.bin', Readable.from([randomBytes(3 * MIB)]), { maxBytes: FILE_BOX_LIMIT })).rejects.toThrow();
    expect(await store().get('org/o1/files/refused.bin')).toBeUndefined();
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(openSpoolFiles()).toBe(0);
  });

  it('stores an empty body, a Buffer body, and the storage class asked for', async () => {
    expect(await store().put('org/o1/files/empty.bin', Readable.from([]), { maxBytes: 10 })).toMatchObject({ size: 0, sha256: createHash('sha256').digest('hex') });
    expect((await read((await store().get('org/o1/files/empty.bin'))!.body)).length).toBe(0);
    const bytes = randomBytes(5000);
    expect(await store().put('org/o1/files/buffer.bin', bytes, { maxBytes: 5000, storageClass: 'STANDARD_IA' })).toMatchObject({ size: 5000, sha256: createHash('sha256').update(bytes).digest('hex') });
    const got = await store().get('org/o1/files/buffer.bin');
    expect(got).toMatchObject({ storageClass: 'STANDARD_IA' });
    expect((await read(got!.body)).equals(bytes)).toBe(true);
    await expect(store().put('org/o1/files/buffer-big.bin', bytes, { maxBytes: 4999 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store().get('org/o1/files/buffer-big.bin')).toBeUndefined();
  });
});

describe('core.blob spool', () => {
  it('reads the spooled body back, from the start each time, from a file without a name, and closing frees it', async () => {
    const data = randomBytes(300_000);
    const spooled = await spool(Readable.from([data.subarray(0, 1000), data.subarray(1000)]), 300_000, spoolDir);
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(openSpoolFiles()).toBe(1);
    expect(spooled.size).toBe(300_000);
    expect(spooled.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect((await read(spooled.stream())).equals(data)).toBe(true);
    // Each reader starts from the beginning (a retry's), and none closes the file: close() does.
    expect((await read(spooled.stream())).equals(data)).toBe(true);
    expect(openSpoolFiles()).toBe(1);
    await spooled.close();
    expect(openSpoolFiles()).toBe(0);
    const unread = await spool(Readable.from([data]), 300_000, spoolDir);
    expect(openSpoolFiles()).toBe(1);
    await unread.close();
    expect(openSpoolFiles()).toBe(0);
  });

  it('a reader left half-way is stopped on close, without a read on the closed file', async () => {
    const spooled = await spool(Readable.from([randomBytes(1 * MIB)]), MIB, spoolDir);
    const reader = spooled.stream();
    await new Promise((resolve) => reader.once('data', resolve));
    reader.pause();
    const errors: unknown[] = [];
    reader.on('error', (err) => errors.push(err));
    await spooled.close();
    reader.resume();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reader.destroyed).toBe(true);
    expect(errors).toEqual([]);
    expect(openSpoolFiles()).toBe(0);
  });

  it('a refused body closes its descriptor exactly once: a file opened right after each refusal stays open', async () => {
    // The failed pipeline's file stream closes the descriptor itself; closing it again closed
    // whatever had been given the same number meanwhile (CI saw S3 uploads hang from it).
    for (let i = 0; i < 50; i++) {
      await expect(spool(Readable.from([randomBytes(600), randomBytes(600)]), 1000, spoolDir)).rejects.toBeInstanceOf(BlobTooLargeError);
      const other = openSync(join(spoolDir, 'other'), 'w');
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(() => fstatSync(other)).not.toThrow();
      closeSync(other);
    }
    rmSync(join(spoolDir, 'other'));
    expect(openSpoolFiles()).toBe(0);
  });
});

describe('core.blob S3: a spooled PutObject that fails is sent again from the spool file', () => {
  /**
   * A proxy in front of the S3 server that answers the first `failures` PUTs 500 InternalError
   * (their bodies read and dropped) and forwards everything else as it came, the signed Host
   * header included. Answers its endpoint, the PUT bodies' sizes as they arrived, and `close()`.
   */
  async function failingProxy(failures: number) {
    const puts: number[] = [];
    const proxy = createServer((req, res) => {
      if (req.method === 'PUT' && puts.length < failures) {
        let size = 0;
        req.on('data', (chunk: Buffer) => (size += chunk.length));
        req.on('end', () => {
          puts.push(size);
          res.writeHead(500, { 'content-type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>once</Message></Error>');
        });
        return;
      }
      const target = new URL(endpoint);
      const forward = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      if (req.method === 'PUT') {
        let size = 0;
        req.on('data', (chunk: Buffer) => (size += chunk.length));
        req.on('end', () => puts.push(size));
      }
      req.pipe(forward);
    });
    await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
    return {
      endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      puts,
      close: () => new Promise((done) => proxy.close(done)),
    };
  }
  const through = (proxyEndpoint: string) =>
    new S3BlobStore({ bucket: BUCKET, endpoint: proxyEndpoint, forcePathStyle: true, region: 'us-east-1', spoolDir, client: { credentials: CREDENTIALS } });

  it('a 500 on the first attempt: the whole body is sent again and stored, the spool file freed', async () => {
    const proxy = await failingProxy(1);
    try {
      const data = randomBytes(3 * MIB);
      const info = await through(proxy.endpoint).put('org/o1/files/retried.bin', Readable.from([data.subarray(0, MIB), data.subarray(MIB)]), { maxBytes: FILE_BOX_LIMIT });
      expect(info).toMatchObject({ size: 3 * MIB, sha256: createHash('sha256').update(data).digest('hex') });
      expect(proxy.puts).toEqual([3 * MIB, 3 * MIB]);
      expect((await read((await store().get('org/o1/files/retried.bin'))!.body)).equals(data)).toBe(true);
      expect(openSpoolFiles()).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('gives up after three attempts: nothing stored, the spool file freed', async () => {
    const proxy = await failingProxy(3);
    try {
      await expect(through(proxy.endpoint).put('org/o1/files/failed.bin', Readable.from([randomBytes(MIB)]), { maxBytes: FILE_BOX_LIMIT })).rejects.toMatchObject({ $metadata: { httpStatusCode: 500 } });
      expect(proxy.puts).toEqual([MIB, MIB, MIB]);
      expect(await store().get('org/o1/files/failed.bin')).toBeUndefined();
      expect(openSpoolFiles()).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});

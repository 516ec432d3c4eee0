import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import { BlobKeyError, BlobTooLargeError, type BlobStore } from '../../../core/blob/blob.types.ts';
import { S3BlobStore } from '../../../core/blob/s3-blob-store.ts';

// A local S3-compatible server that checks SigV4 signatures (a wrong secret is refused).
const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as new (options: object) => { run(): Promise<{ address: string; port: number }>; close(): Promise<void> };
const BUCKET = 'aerie-test';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const bytes = (n: number) => randomBytes(n);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
async function read(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Fetches a presigned URL; the embedded driver's point at the configured base URL, here the test server. */
function fetchUrl(url: string): Promise<Response> {
  const base = aerie.kernel.config.baseUrl;
  return fetch(url.startsWith(base) ? aerie.url + url.slice(base.length) : url);
}

interface Driver {
  name: string;
  store: () => BlobStore;
  /** Makes a URL presigned now fail its expiry check. */
  expire: () => Promise<void>;
}

const s3dir = mkdtempSync(join(tmpdir(), 'aerie-s3rver-'));
let s3server: InstanceType<typeof S3rver>;
let s3endpoint: string;
let aerie: TestAerie;
const clock = new ManualClock(new Date('2026-11-24T12:00:00Z'));

beforeAll(async () => {
  s3server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3server.run();
  s3endpoint = `http://127.0.0.1:${port}`;
  aerie = await TestAerie.start({ plugins: ['accounts'], clock });
});
afterAll(async () => {
  await aerie?.close();
  await s3server?.close();
  rmSync(s3dir, { recursive: true, force: true });
});

const drivers: Driver[] = [
  {
    name: 'file (embedded)',
    store: () => aerie.kernel.container.resolve<BlobStore>(coreRefs.blob.id),
    expire: async () => clock.advance(3600),
  },
  {
    name: 's3 (S3-compatible server)',
    store: () => new S3BlobStore({ bucket: BUCKET, endpoint: s3endpoint, forcePathStyle: true, region: 'us-east-1', client: { credentials: CREDENTIALS } }),
    expire: () => new Promise((r) => setTimeout(r, 2100)),
  },
];

describe.each(drivers)('core.blob contract: $name', (driver) => {
  it('stores a body and reads it back with its size, SHA-256 and content type', async () => {
    const store = driver.store();
    const body = bytes(300_000);
    const info = await store.put('org/o1/files/a.bin', Readable.from([body.subarray(0, 1000), body.subarray(1000)]), { maxBytes: 1_000_000, contentType: 'application/pdf' });
    expect(info).toEqual({ key: 'org/o1/files/a.bin', size: body.length, sha256: sha256(body), contentType: 'application/pdf' });
    const got = await store.get('org/o1/files/a.bin');
    expect(got).toMatchObject({ key: 'org/o1/files/a.bin', size: body.length, contentType: 'application/pdf' });
    expect((await read(got!.body)).equals(body)).toBe(true);
  });

  it('refuses a body past maxBytes and stores nothing, not even a part', async () => {
    const store = driver.store();
    await expect(store.put('org/o1/files/big.bin', Readable.from([bytes(600), bytes(600)]), { maxBytes: 1000 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.get('org/o1/files/big.bin')).toBeUndefined();
  });

  it('refuses a body past a limit above 16 MiB (multipart on S3) with the size error, whatever aborting the upload answers', async () => {
    const store = driver.store();
    const mib = 1024 * 1024;
    await expect(store.put('org/o1/files/bigger.bin', Readable.from([bytes(6 * mib), bytes(6 * mib), bytes(6 * mib)]), { maxBytes: 17 * mib })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.get('org/o1/files/bigger.bin')).toBeUndefined();
  });

  it('deletes, and deleting what is gone is fine', async () => {
    const store = driver.store();
    await store.put('org/o1/files/gone.txt', Buffer.from('bye'), { maxBytes: 10 });
    await store.delete('org/o1/files/gone.txt');
    expect(await store.get('org/o1/files/gone.txt')).toBeUndefined();
    await expect(store.delete('org/o1/files/gone.txt')).resolves.toBeUndefined();
  });

  it('presigns a download: attachment with the file name by default, inline when asked, refused once expired', async () => {
    const store = driver.store();
    const body = Buffer.from('%PDF-1.7 hello');
    await store.put('org/o1/files/report.pdf', body, { maxBytes: 1000, contentType: 'application/pdf' });
    const url = await store.presignGet('org/o1/files/report.pdf', { expiresInSeconds: 1, fileName: 'Q3 report.pdf' });
    const res = await fetchUrl(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Q3 report.pdf"');
    const inline = await fetchUrl(await store.presignGet('org/o1/files/report.pdf', { expiresInSeconds: 60, disposition: 'inline' }));
    expect(inline.headers.get('content-disposition')).toBe('inline');
    await driver.expire();
    expect((await fetchUrl(url)).status).toBeGreaterThanOrEqual(400);
  });

  it('moves an object to infrequent-access storage keeping its bytes, type and URL', async () => {
    const store = driver.store();
    const body = bytes(2000);
    await store.put('org/o1/files/cold.bin', body, { maxBytes: 10_000, contentType: 'application/pdf' });
    const url = await store.presignGet('org/o1/files/cold.bin', { expiresInSeconds: 600 });
    expect((await store.get('org/o1/files/cold.bin'))).toMatchObject({ storageClass: 'STANDARD' });
    await store.setStorageClass('org/o1/files/cold.bin', 'STANDARD_IA');
    const got = await store.get('org/o1/files/cold.bin');
    expect(got).toMatchObject({ size: 2000, contentType: 'application/pdf', storageClass: 'STANDARD_IA' });
    expect((await read(got!.body)).equals(body)).toBe(true);
    const res = await fetchUrl(url);
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
    await expect(store.setStorageClass('org/o1/files/none.bin', 'STANDARD_IA')).rejects.toThrow();
  });

  it.each(['', '/abs', 'a//b', 'a/../b', 'a/./b', 'sp ace', 'x'.repeat(513), 'nul\u0000'])('refuses the key %j', async (key) => {
    await expect(driver.store().put(key, Buffer.from('x'), { maxBytes: 10 })).rejects.toBeInstanceOf(BlobKeyError);
  });
});

describe('core.blob specifics', () => {
  it('s3: a wrong secret is refused by the server (signatures are checked)', async () => {
    const store = new S3BlobStore({ bucket: BUCKET, endpoint: s3endpoint, forcePathStyle: true, client: { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'wrong' } } });
    await expect(store.put('org/o1/files/x.txt', Buffer.from('x'), { maxBytes: 10 })).rejects.toThrow();
    expect(await new S3BlobStore({ bucket: BUCKET, endpoint: s3endpoint, forcePathStyle: true, client: { credentials: CREDENTIALS } }).get('org/o1/files/x.txt')).toBeUndefined();
  });

  it('file: a download URL with another key or a forged signature answers 404, and the answer cannot run script', async () => {
    const store = aerie.kernel.container.resolve<BlobStore>(coreRefs.blob.id);
    await store.put('org/o1/files/pic.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), { maxBytes: 1000, contentType: 'image/svg+xml' });
    const url = await store.presignGet('org/o1/files/pic.svg', { expiresInSeconds: 60, disposition: 'inline' });
    const ok = await fetchUrl(url);
    expect(ok.headers.get('content-security-policy')).toContain('sandbox');
    expect(ok.headers.get('x-content-type-options')).toBe('nosniff');
    const [payload, signature] = url.split('/api/blobs/')[1].split('.');
    const other = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), key: 'org/o2/secret.bin' })).toString('base64url');
    expect((await fetch(`${aerie.url}/api/blobs/${other}.${signature}`)).status).toBe(404);
    expect((await fetch(`${aerie.url}/api/blobs/${payload}.${'A'.repeat(43)}`)).status).toBe(404);
  });
});

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobKey, type BlobInfo, type BlobStore, type PresignOptions, type PutOptions } from './blob.types.ts';
import { MeasuringStream, toStream } from './measure.ts';
import { signGrant } from './signed-url.ts';

/**
 * The embedded `core.blob` driver: objects as files under `root` (`<dataDir>/blobs`), each with a
 * `.meta.json` beside it (size, SHA-256, content type). A body is written to a temporary file and
 * renamed into place only when complete, so a refused or broken upload leaves nothing. Download
 * URLs point at Aerie itself (`GET /api/blobs/{grant}`), signed with HMAC-SHA256 under a key
 * derived from the master key, expiring, `Content-Disposition: attachment` unless `inline` is asked.
 */
export class FileBlobStore implements BlobStore {
  readonly driver = 'file' as const;

  constructor(
    private readonly root: string,
    private readonly baseUrl: string,
    private readonly urlKey: Buffer,
    private readonly now: () => Date,
  ) {}

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<BlobInfo & { sha256: string }> {
    assertBlobKey(key);
    const file = this.path(key);
    await mkdir(dirname(file), { recursive: true });
    const temp = `${file}.${randomUUID()}.part`;
    const measure = new MeasuringStream(options.maxBytes);
    try {
      await pipeline(toStream(body), measure, createWriteStream(temp, { mode: 0o600 }));
      const info = { key, size: measure.size, sha256: measure.sha256(), contentType: options.contentType ?? 'application/octet-stream' };
      await rename(temp, file);
      // The description last: an object without it does not exist for readers.
      await writeFile(`${file}.meta.json`, JSON.stringify({ ...info, storageClass: options.storageClass ?? 'STANDARD' }), { mode: 0o600 });
      return info;
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<(BlobInfo & { body: Readable }) | undefined> {
    return this.getRange(key);
  }

  /** As {@link get}, the body cut to bytes `start`–`end` (inclusive) when a range is given (the download route's `Range`). */
  async getRange(key: string, range?: { start: number; end: number }): Promise<(BlobInfo & { body: Readable }) | undefined> {
    assertBlobKey(key);
    const info = await this.info(key);
    return info ? { ...info, body: createReadStream(this.path(key), range) } : undefined;
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await rm(this.path(key), { force: true });
    await rm(`${this.path(key)}.meta.json`, { force: true });
  }

  async presignGet(key: string, options: PresignOptions): Promise<string> {
    assertBlobKey(key);
    const exp = Math.floor(this.now().getTime() / 1000) + options.expiresInSeconds;
    const grant = signGrant({ key, exp, disposition: options.disposition ?? 'attachment', ...(options.fileName ? { fileName: options.fileName } : {}) }, this.urlKey);
    return `${this.baseUrl}/api/blobs/${grant}`;
  }

  async setStorageClass(key: string, storageClass: string): Promise<void> {
    assertBlobKey(key);
    const info = await this.info(key);
    if (!info) throw new Error(`no blob ${key}`);
    const temp = `${this.path(key)}.meta.${randomUUID()}.part`;
    await writeFile(temp, JSON.stringify({ ...info, storageClass }), { mode: 0o600 });
    await rename(temp, `${this.path(key)}.meta.json`);
  }

  /** The stored object's description, or undefined (also while a half-written body is in flight). */
  async info(key: string): Promise<BlobInfo | undefined> {
    try {
      const info = JSON.parse(await readFile(`${this.path(key)}.meta.json`, 'utf8')) as BlobInfo;
      return info.key === key ? { storageClass: 'STANDARD', ...info } : undefined;
    } catch {
      return undefined;
    }
  }

  private path(key: string): string {
    return join(this.root, ...key.split('/'));
  }
}

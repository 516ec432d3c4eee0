import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, type PutObjectCommandInput, type S3ClientConfig, type StorageClass } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { create as contentDisposition } from 'content-disposition';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setTimeout } from 'node:timers/promises';
import { assertBlobKey, BlobTooLargeError, type BlobInfo, type BlobStore, type PresignOptions, type PutOptions } from './blob.types.ts';
import { MeasuringStream } from './measure.ts';
import { spool, type SpooledBody } from './spool.ts';

/** Where the S3 driver stores: `bucket`, optional `endpoint` (S3-compatible servers), `region`, `forcePathStyle`. */
export interface S3BlobOptions {
  bucket: string;
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  /** Extra client settings (tests pass credentials; otherwise the SDK's usual chain applies). */
  client?: Partial<S3ClientConfig>;
  /** Folder that streamed bodies of single PutObjects are spooled to (default the OS's temporary folder, `TMPDIR`). */
  spoolDir?: string;
}

/**
 * Largest `maxBytes` sent as one PutObject: S3 needs a length up front, so such a streamed body is
 * spooled to a temporary file first (it holds every file-box upload; larger ones go multipart).
 */
const SINGLE_PUT_MAX_BYTES = 16 * 1024 * 1024;
/** Attempts at most of a PutObject sent from a spool file, and the first retry's delay (ms; doubled at each retry). */
const SPOOLED_PUT_ATTEMPTS = 3;
const RETRY_BASE_MS = 100;
/** What every PutObject of `put` sends besides its body. */
type PutParams = Omit<PutObjectCommandInput, 'Body' | 'ContentLength'>;

/**
 * The S3 `core.blob` driver (`@aws-sdk/client-s3`). A streamed body whose `maxBytes` is at most
 * 16 MiB is counted and hashed as it arrives and written to an unnamed temporary file (see
 * {@link spool}), so memory holds only the chunks in transit whatever the body's size, then sent
 * from that file as one PutObject signed with that SHA-256 as its payload hash (S3 checks the bytes
 * against it; the SDK does not hash them a second time); a Buffer body is sent as it is. Larger
 * limits stream through `@aws-sdk/lib-storage` (multipart past 5 MiB, aborted when the body breaks
 * the size limit, so nothing is stored). Download URLs are S3 presigned GETs
 * (`@aws-sdk/s3-request-presigner`) with `ResponseContentDisposition`. Credentials come from the
 * SDK's default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, profiles, instance roles).
 */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  private readonly s3: S3Client;

  constructor(private readonly options: S3BlobOptions) {
    this.s3 = new S3Client({
      region: options.region ?? 'us-east-1', forcePathStyle: options.forcePathStyle ?? false,
      // The SigV4 payload hash already covers every byte; no extra CRC32 pass where S3 does not require one.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}), ...options.client,
    });
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<BlobInfo & { sha256: string }> {
    assertBlobKey(key);
    const contentType = options.contentType ?? 'application/octet-stream';
    const params: PutParams = { Bucket: this.options.bucket, Key: key, ContentType: contentType, ...(options.storageClass ? { StorageClass: options.storageClass as StorageClass } : {}) };
    if (Buffer.isBuffer(body)) {
      if (body.length > options.maxBytes) throw new BlobTooLargeError(options.maxBytes);
      const sha256 = createHash('sha256').update(body).digest('hex');
      await this.s3.send(signedWithHash(new PutObjectCommand({ ...params, Body: body, ContentLength: body.length }), sha256));
      return { key, size: body.length, sha256, contentType };
    }
    if (options.maxBytes <= SINGLE_PUT_MAX_BYTES) {
      // Nothing reaches S3 before the body is complete and within the limit: a refused body leaves no object.
      const spooled = await spool(body, options.maxBytes, this.options.spoolDir);
      try {
        await this.putSpooled(params, spooled);
        return { key, size: spooled.size, sha256: spooled.sha256, contentType };
      } finally {
        await spooled.close();
      }
    }
    const measure = new MeasuringStream(options.maxBytes);
    body.on('error', (err) => measure.destroy(err));
    const upload = new Upload({ client: this.s3, params: { ...params, Body: body.pipe(measure) } });
    try {
      await upload.done();
    } catch (err) {
      // The size limit (or a broken body) is the cause even when aborting the multipart upload fails too.
      throw measure.errored ?? err;
    }
    // The hash is known only once the body has streamed: callers keep it (their file records);
    // S3 objects are not rewritten to carry it.
    return { key, size: measure.size, sha256: measure.sha256(), contentType };
  }

  /**
   * One PutObject of a spooled body, each attempt reading the spool file afresh: the SDK never
   * retries a request whose body is a stream (the stream is consumed), so a failure S3 or the
   * network says is worth retrying (5xx, 429, a reset connection) is retried here, at most
   * {@link SPOOLED_PUT_ATTEMPTS} attempts in all, after {@link RETRY_BASE_MS} × 2ⁿ ms with jitter.
   */
  private async putSpooled(params: PutParams, spooled: SpooledBody): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.s3.send(signedWithHash(new PutObjectCommand({ ...params, Body: spooled.stream(), ContentLength: spooled.size }), spooled.sha256));
        return;
      } catch (err) {
        if (attempt >= SPOOLED_PUT_ATTEMPTS || !retryable(err)) throw err;
        await setTimeout(RETRY_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random()));
      }
    }
  }

  async get(key: string): Promise<(BlobInfo & { body: Readable }) | undefined> {
    assertBlobKey(key);
    try {
      const res = await this.s3.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return {
        key, size: Number(res.ContentLength ?? 0), contentType: res.ContentType ?? 'application/octet-stream',
        storageClass: res.StorageClass ?? 'STANDARD', body: res.Body as Readable,
      };
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey' || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  async setStorageClass(key: string, storageClass: string): Promise<void> {
    assertBlobKey(key);
    const head = await this.s3.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
    const source = `${this.options.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
    // REPLACE with the object's own type and metadata: a copy onto itself must change something, and
    // some S3-compatible servers do not count the storage class.
    await this.s3.send(new CopyObjectCommand({
      Bucket: this.options.bucket, Key: key, CopySource: source, StorageClass: storageClass as never,
      MetadataDirective: 'REPLACE', ContentType: head.ContentType, Metadata: head.Metadata,
    }));
  }

  async presignGet(key: string, options: PresignOptions): Promise<string> {
    assertBlobKey(key);
    const disposition = contentDisposition(options.fileName, { type: options.disposition ?? 'attachment' });
    return getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.options.bucket, Key: key, ResponseContentDisposition: disposition }), { expiresIn: options.expiresInSeconds });
  }
}

/** Whether a failed S3 request may succeed when sent again: the SDK's `$retryable`, a 5xx or 429 answer, or no answer (a network error). */
function retryable(err: unknown): boolean {
  const { $retryable, $metadata, code } = err as { $retryable?: unknown; $metadata?: { httpStatusCode?: number }; code?: string };
  const status = $metadata?.httpStatusCode;
  if ($retryable || (status !== undefined && (status >= 500 || status === 429))) return true;
  return status === undefined && typeof code === 'string' && ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED'].includes(code);
}

/** `command` with `x-amz-content-sha256` set to `sha256` (hex), which SigV4 then signs instead of hashing the body again. */
function signedWithHash(command: PutObjectCommand, sha256: string): PutObjectCommand {
  command.middlewareStack.add((next) => async (args) => {
    (args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256'] = sha256;
    return next(args);
  }, { step: 'build', name: 'aerieMeasuredPayloadHash' });
  return command;
}

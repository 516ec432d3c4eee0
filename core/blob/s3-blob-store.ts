import { DeleteObjectCommand, GetObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { create as contentDisposition } from 'content-disposition';
import { Readable } from 'node:stream';
import { assertBlobKey, type BlobInfo, type BlobStore, type PresignOptions, type PutOptions } from './blob.types.ts';
import { MeasuringStream, toStream } from './measure.ts';

/** Where the S3 driver stores: `bucket`, optional `endpoint` (S3-compatible servers), `region`, `forcePathStyle`. */
export interface S3BlobOptions {
  bucket: string;
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  /** Extra client settings (tests pass credentials; otherwise the SDK's usual chain applies). */
  client?: Partial<S3ClientConfig>;
}

/**
 * The S3 `core.blob` driver (`@aws-sdk/client-s3`): uploads stream through `@aws-sdk/lib-storage`
 * (multipart past 5 MiB, aborted when the body breaks the size limit, so nothing is stored); download URLs are S3 presigned GETs
 * (`@aws-sdk/s3-request-presigner`) with `ResponseContentDisposition`. Credentials come from the
 * SDK's default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, profiles, instance roles).
 */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  private readonly s3: S3Client;

  constructor(private readonly options: S3BlobOptions) {
    this.s3 = new S3Client({
      region: options.region ?? 'us-east-1', forcePathStyle: options.forcePathStyle ?? false,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}), ...options.client,
    });
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<BlobInfo & { sha256: string }> {
    assertBlobKey(key);
    const measure = new MeasuringStream(options.maxBytes);
    const source = toStream(body);
    source.on('error', (err) => measure.destroy(err));
    const contentType = options.contentType ?? 'application/octet-stream';
    const upload = new Upload({
      client: this.s3,
      params: { Bucket: this.options.bucket, Key: key, Body: source.pipe(measure), ContentType: contentType, ...(options.storageClass ? { StorageClass: options.storageClass as never } : {}) },
    });
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

  async get(key: string): Promise<(BlobInfo & { body: Readable }) | undefined> {
    assertBlobKey(key);
    try {
      const res = await this.s3.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return {
        key, size: Number(res.ContentLength ?? 0), contentType: res.ContentType ?? 'application/octet-stream',
        body: res.Body as Readable,
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

  async presignGet(key: string, options: PresignOptions): Promise<string> {
    assertBlobKey(key);
    const disposition = contentDisposition(options.fileName, { type: options.disposition ?? 'attachment' });
    return getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.options.bucket, Key: key, ResponseContentDisposition: disposition }), { expiresIn: options.expiresInSeconds });
  }
}

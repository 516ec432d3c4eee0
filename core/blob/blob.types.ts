import type { Readable } from 'node:stream';

/**
 * What a stored object answers. Shape: `{ key, size (bytes), sha256 (hex), contentType }`. `put`
 * always answers `sha256` (callers keep it in their records); `get` answers it when the driver
 * stored it (the file driver does, S3 objects are not rewritten for it).
 */
export interface BlobInfo {
  key: string;
  size: number;
  sha256?: string;
  contentType: string;
  /** The storage class, when the driver reports one (`STANDARD`, `STANDARD_IA`, …). */
  storageClass?: string;
}

/** Options of {@link BlobStore.put}. */
export interface PutOptions {
  /** Largest object accepted, in bytes; a longer body is refused and nothing is stored. */
  maxBytes: number;
  /** Stored and answered on reads; default `application/octet-stream`. */
  contentType?: string;
  /** S3 storage class (`STANDARD`, `STANDARD_IA`, `GLACIER_IR`, …); the file driver records it. */
  storageClass?: string;
}

/** Options of {@link BlobStore.presignGet}. */
export interface PresignOptions {
  /** Seconds the URL works, 1–604800. */
  expiresInSeconds: number;
  /** The file name the browser saves the download as. */
  fileName?: string;
  /** `attachment` (default: the browser downloads it) or `inline` (shows it, for images a page embeds). */
  disposition?: 'attachment' | 'inline';
}

/**
 * `core.blob`: object storage behind one interface — the embedded default under `<dataDir>/blobs`,
 * or S3 (any S3-compatible server). Keys are `[A-Za-z0-9._/-]`, at most 512 characters, no `..` or
 * empty segments; callers prefix them with the organization (`org/<orgId>/…`).
 * @see docs/plugins.md "Object storage (core.blob)"
 */
export interface BlobStore {
  /** `file` or `s3`. */
  readonly driver: 'file' | 's3';
  /**
   * Stores `body` under `key` (replacing what was there), counting and hashing it as it streams.
   * @throws BlobTooLargeError past `maxBytes` (nothing stored); BlobKeyError for a bad key.
   */
  put(key: string, body: Readable | Buffer, options: PutOptions): Promise<BlobInfo & { sha256: string }>;
  /** The object and its body as a stream, or undefined when there is none. */
  get(key: string): Promise<(BlobInfo & { body: Readable }) | undefined>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Moves a stored object to another storage class (`STANDARD_IA` for infrequent access), keeping its
   * key, bytes and content type, so URLs to it stay the same: S3 copies the object onto itself with
   * the new class; the file driver records the class in its description.
   * @throws Error when there is no such object.
   */
  setStorageClass(key: string, storageClass: string): Promise<void>;
  /** A URL anyone can GET until it expires, with `Content-Disposition` as asked. */
  presignGet(key: string, options: PresignOptions): Promise<string>;
}

/** A body longer than `maxBytes`. `limitBytes` is the limit. */
export class BlobTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the object is larger than ${limitBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

/** A key outside the allowed form. */
export class BlobKeyError extends Error {
  constructor(key: string) {
    super(`blob key ${JSON.stringify(key.slice(0, 80))} must be [A-Za-z0-9._/-], at most 512 characters, without empty or dot segments`);
    this.name = 'BlobKeyError';
  }
}

const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** @throws BlobKeyError unless `key` has the allowed form. */
export function assertBlobKey(key: string): void {
  if (key.length > 512 || !KEY.test(key) || key.split('/').some((s) => s === '.' || s === '..')) throw new BlobKeyError(key);
}

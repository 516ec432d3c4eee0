import { join } from 'node:path';
import type { AerieConfig } from '../config/config.types.ts';
import type { CryptoService } from '../crypto/index.ts';
import type { RouteDef } from '../http/route.ts';
import type { BlobStore } from './blob.types.ts';
import { blobDownloadRoute } from './blob-route.ts';
import { FileBlobStore } from './file-blob-store.ts';

/**
 * The configured `core.blob` driver, and the kernel route the embedded driver's URLs need. The S3
 * driver (and the AWS SDK, ~30 MiB of memory) is loaded only when configured.
 * @throws Error when `blob.driver` is `s3` without `blob.s3.bucket`.
 */
export async function createBlobStore(config: AerieConfig, crypto: CryptoService, now: () => Date): Promise<{ store: BlobStore; routes: RouteDef[] }> {
  if (config.blob.driver === 's3') {
    const s3 = config.blob.s3 ?? {};
    if (!s3.bucket) throw new Error('invalid config: blob.s3.bucket is required when blob.driver is s3 (AERIE_S3_BUCKET)');
    const { S3BlobStore } = await import('./s3-blob-store.ts');
    return { store: new S3BlobStore({ bucket: s3.bucket, endpoint: s3.endpoint, region: s3.region, forcePathStyle: s3.forcePathStyle }), routes: [] };
  }
  const urlKey = crypto.deriveKey('core.blob.url');
  const store = new FileBlobStore(join(config.dataDir, 'blobs'), config.baseUrl, urlKey, now);
  return { store, routes: [blobDownloadRoute(store, urlKey, now)] };
}

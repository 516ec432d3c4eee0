import { createServiceRef } from '../../core/index.ts';
import type { FilesService } from './files.service.ts';
import type { LifecycleService } from './lifecycle.service.ts';
import type { SharesService } from './shares.service.ts';
import type { SharingPolicyService } from './sharing-policy.service.ts';
import type { StorageService } from './storage.service.ts';

/** Services of the files plugin (none is public API yet). */
export const filesRefs = {
  files: createServiceRef<FilesService>('files.files'),
  lifecycle: createServiceRef<LifecycleService>('files.lifecycle'),
  shares: createServiceRef<SharesService>('files.shares'),
  sharingPolicy: createServiceRef<SharingPolicyService>('files.sharingPolicy'),
  storage: createServiceRef<StorageService>('files.storage'),
};

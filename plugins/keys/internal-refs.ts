import { createServiceRef } from '../../core/index.ts';
import type { KeyStatusService } from './key-status.service.ts';

/** Services internal to the keys plugin (not in api.ts). */
export const keysInternalRefs = {
  keyStatus: createServiceRef<KeyStatusService>('keys.keyStatus'),
};

import { route, type RouteDef } from '../../../core/index.ts';
import type { StorageService } from '../storage.service.ts';
import { storageUsage } from '../schemas/responses.ts';
import { keyOrg } from './org-key.ts';

/** `GET /api/public/v1/storage/usage`: the organization's storage against its plan. @see docs/api/files.md */
export function storageRoutes(storage: StorageService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/public/v1/storage/usage', auth: 'apiKey', response: storageUsage,
      summary: "The organization's storage usage: the number the upload gate enforces", tags: ['files'],
      handler: ({ principal }) => storage.usage(keyOrg(principal)),
    }),
  ];
}

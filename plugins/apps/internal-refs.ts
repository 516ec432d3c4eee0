import { createServiceRef } from '../../core/index.ts';
import type { ApplicationsService } from './applications.service.ts';

/** Services internal to the apps plugin (not in api.ts): the class, with its in-transaction insert. */
export const appsInternalRefs = {
  applications: createServiceRef<ApplicationsService>('apps.applicationsInternal'),
};

import { createServiceRef } from '../../core/index.ts';
import type { ApplicationsService } from './applications.service.ts';
import type { AppGroupIconsService } from './app-group-icons.service.ts';

/** Services internal to the apps plugin (not in api.ts): the applications class with its in-transaction insert, the icons. */
export const appsInternalRefs = {
  applications: createServiceRef<ApplicationsService>('apps.applicationsInternal'),
  icons: createServiceRef<AppGroupIconsService>('apps.appGroupIcons'),
};

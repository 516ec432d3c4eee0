/**
 * The endusers plugin's public API: service refs and DTOs other plugins may import.
 * @see docs/api/endusers.md
 */
import { createServiceRef } from '../../core/index.ts';
import type { EndUserImportsService, EndUsersService } from './service-interfaces.ts';

export type {
  EndUserDto, EndUserImportsService, EndUserPage, EndUserQuery, EndUsersService, EndUserStatus, ImportReason, ImportRequest, ImportRowResult, ImportUser,
} from './service-interfaces.ts';

/** Service refs of the endusers plugin. */
export const endUsersRefs = {
  endUsers: createServiceRef<EndUsersService>('endusers.endUsers'),
  imports: createServiceRef<EndUserImportsService>('endusers.imports'),
};

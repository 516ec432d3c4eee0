/**
 * The endusers plugin's public API: service refs and DTOs other plugins may import.
 * @see docs/api/endusers.md
 */
import { createServiceRef } from '../../core/index.ts';
import type { EndUserImportsService, EndUserSignInService, EndUsersService } from './service-interfaces.ts';

export type {
  EndUserCreatedVia, EndUserDto, EndUserImportsService, EndUserPage, EndUserQuery, EndUserSignInService, EndUsersService, EndUserStatus, EndUserSubject,
  ImportReason, ImportRequest, ImportRowResult, ImportUser, SignInCodeMail, SignInContext, SignInFailure, SignInFailureReason, SignInMethod,
} from './service-interfaces.ts';

/** Service refs of the endusers plugin. */
export const endUsersRefs = {
  endUsers: createServiceRef<EndUsersService>('endusers.endUsers'),
  imports: createServiceRef<EndUserImportsService>('endusers.imports'),
  signIn: createServiceRef<EndUserSignInService>('endusers.signIn'),
};

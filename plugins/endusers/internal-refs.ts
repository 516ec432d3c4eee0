import { createServiceRef } from '../../core/index.ts';
import type { EndUsersService } from './end-users.service.ts';
import type { EndUserImports } from './imports.service.ts';
import type { EndUserInvites } from './invites.service.ts';
import type { SignInCodeMailer } from './sign-in-code-mail.ts';

/** Services internal to the endusers plugin (not in api.ts): the classes, with their extra methods. */
export const endUsersInternalRefs = {
  endUsers: createServiceRef<EndUsersService>('endusers.endUsersInternal'),
  imports: createServiceRef<EndUserImports>('endusers.importsInternal'),
  invites: createServiceRef<EndUserInvites>('endusers.invites'),
  signInCodes: createServiceRef<SignInCodeMailer>('endusers.signInCodes'),
};

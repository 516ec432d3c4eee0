import { createServiceRef } from '../../core/index.ts';
import type { ConnectionsService } from './connections.service.ts';
import type { LinksService } from './links.service.ts';
import type { SigninService } from './signin.service.ts';

/** The federation plugin's services (internal: no other plugin imports them). */
export const federationRefs = {
  connections: createServiceRef<ConnectionsService>('federation.connections'),
  signin: createServiceRef<SigninService>('federation.signin'),
  links: createServiceRef<LinksService>('federation.links'),
};

import { notFound } from '../../core/index.ts';

/** Errors of the public-api plugin: it has no codes of its own, only the kernel's `NOT_FOUND`. */
export const publicApiErrors = {
  /** Unknown organization id, or (on `/me`) a key whose organization is gone. */
  organizationNotFound: () => notFound('Organization not found.'),
  /** No organization of the owner has the name asked for. */
  noMatchingOrganization: () => notFound('No organization of that owner has that name.'),
  /** No app group with that key in the key's organization. */
  appGroupNotFound: () => notFound('App group not found.'),
};

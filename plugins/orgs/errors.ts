import { aerieError, defineErrorCodes, notFound, permissionDenied } from '../../core/index.ts';

/** The orgs plugin's own error codes (documented in docs/api/orgs.md). */
export const orgsErrorCodes = defineErrorCodes('orgs', {
  SLUG_TAKEN: { status: 409, description: 'another organization has the slug' },
  SLUG_RESERVED: { status: 400, description: 'the slug is on the reserved list' },
  TYPE_CHANGE_NOT_ALLOWED: { status: 409, description: 'the organization type cannot change this way' },
});

type OrgsErrorCodes = typeof orgsErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends OrgsErrorCodes {}
}

/** Errors of the orgs plugin. */
export const orgsErrors = {
  slugTaken: (slug: string) => aerieError('SLUG_TAKEN', `The slug "${slug}" is already in use.`, { slug }),
  slugReserved: (slug: string) => aerieError('SLUG_RESERVED', `The slug "${slug}" is reserved.`, { field: 'slug', slug }),
  typeChangeNotAllowed: (from: string, to: string) =>
    aerieError('TYPE_CHANGE_NOT_ALLOWED', `A ${from} organization cannot become ${to}.`, { from, to }),
  organizationNotFound: () => notFound('Organization not found.'),
  masterSealNotFound: () => notFound('This organization has no master seal.'),
  ownerOnlyTypeChange: () => permissionDenied(undefined, 'Only the owner may change the organization type.'),
};

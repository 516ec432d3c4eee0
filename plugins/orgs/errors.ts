import { AerieError } from '../../core/index.ts';

/** Error codes of the orgs plugin (documented in docs/api/orgs.md). */
export const orgsErrors = {
  slugTaken: (slug: string) => new AerieError(409, 'SLUG_TAKEN', `The slug "${slug}" is already in use.`, { slug }),
  slugReserved: (slug: string) => new AerieError(400, 'SLUG_RESERVED', `The slug "${slug}" is reserved.`, { field: 'slug', slug }),
  typeChangeNotAllowed: (from: string, to: string) =>
    new AerieError(409, 'TYPE_CHANGE_NOT_ALLOWED', `A ${from} organization cannot become ${to}.`, { from, to }),
};

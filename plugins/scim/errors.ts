import { notFound } from '../../core/index.ts';

/** Errors of the scim plugin's Aerie routes (token administration); SCIM routes answer SCIM error bodies. */
export const scimErrors = {
  tokenNotFound: () => notFound('SCIM token not found.'),
};

import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/**
 * Extensions embedded PGlite is opened with (a PostgreSQL server has them as contrib modules):
 * `pg_trgm`, for trigram indexes behind substring search. Pass them to any `new PGlite(…)` that
 * opens an Aerie database.
 */
export const PGLITE_EXTENSIONS = { pg_trgm };

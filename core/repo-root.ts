import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository top (where `plugins/`, `migrations/` and `schemas/` live). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

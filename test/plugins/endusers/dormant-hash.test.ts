import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { END_USER_COLUMNS } from '../../../plugins/endusers/end-user-record.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const HASH = /password_?hash(?!_incomplete)/i;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|js|mjs)$/.test(e.name) ? [join(dir, e.name)] : []);
}

/**
 * Imported password hashes are dormant: the request schema and types carry them to the import's one
 * insert, the migration defines the columns, and no other code — no read, no sign-in, no invite
 * verification — names them.
 */
describe('endusers: dormant password hashes', () => {
  const files = ['core', 'plugins', 'migrations'].flatMap((d) => sources(join(ROOT, d)));
  const naming = files.filter((f) => HASH.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f)).sort();

  it('are named only by the request schema and types, the row screening, the import insert and the migration', () => {
    expect(naming).toEqual([
      'migrations/endusers/001_endusers.ts', 'plugins/endusers/import-rows.ts', 'plugins/endusers/imports.service.ts',
      'plugins/endusers/schemas/bodies.ts', 'plugins/endusers/service-interfaces.ts',
    ]);
  });

  it('are touched in the import service only inside its insert of end users', () => {
    const text = readFileSync(join(ROOT, 'plugins/endusers/imports.service.ts'), 'utf8');
    const insert = /\n  private async insertEndUsers\([\s\S]*?\n  }\n/.exec(text)![0];
    expect(insert).toMatch(/insert into \$\{END_USERS\}/);
    expect(text.split(insert).join('')).not.toMatch(HASH);
    expect(insert).toMatch(HASH);
  });

  it('are never selected: reads name their columns, which leave the hash out', () => {
    expect(END_USER_COLUMNS.some((c) => HASH.test(c))).toBe(false);
    for (const file of sources(join(ROOT, 'plugins/endusers'))) {
      const text = readFileSync(file, 'utf8');
      expect(text, relative(ROOT, file)).not.toMatch(/select\(\s*'\*'|returning\(\s*'\*'|\.first\(\s*\)|select \*/i);
    }
  });
});

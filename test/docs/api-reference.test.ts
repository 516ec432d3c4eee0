import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestAerie } from '../helpers/harness.ts';

const DOCS = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/api');

/**
 * `docs/api/` is the complete reference: every route of every built-in plugin has a row in
 * `docs/api/README.md`, and the page that row links to names the route's path. A route added
 * without its documentation fails here.
 */
describe('docs/api documents every route', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    aerie = await TestAerie.start();
  });
  afterAll(() => aerie?.close());

  it('lists every route in docs/api/README.md and names it on the linked page', () => {
    const index = readFileSync(join(DOCS, 'README.md'), 'utf8');
    const problems: string[] = [];
    for (const route of aerie.kernel.routes) {
      const row = index.split('\n').find((l) => l.startsWith(`| ${route.method} | \`${route.path}\` |`));
      if (!row) {
        problems.push(`${route.method} ${route.path}: no row in docs/api/README.md`);
        continue;
      }
      const page = /\]\(([a-z0-9-]+\.md)\)/.exec(row)?.[1];
      if (!page || !readFileSync(join(DOCS, page), 'utf8').includes(route.path)) problems.push(`${route.method} ${route.path}: not named on ${page}`);
    }
    const rows = index.split('\n').filter((l) => /^\| (GET|POST|PUT|PATCH|DELETE) \|/.test(l));
    const served = new Set(aerie.kernel.routes.map((r) => `${r.method} ${r.path}`));
    for (const row of rows) {
      const [, method, path] = /^\| (\w+) \| `([^`]+)` \|/.exec(row)!;
      if (!served.has(`${method} ${path}`)) problems.push(`${method} ${path}: documented but not served`);
    }
    expect(problems).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every route path is written as one string literal, so grepping a documented path
 * (`/api/org/{slug}/roles/{roleId}`) lands on the route that serves it.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? routeFiles(join(dir, e.name)) : e.name.endsWith('.route.ts') || e.name === 'kernel-routes.ts' ? [join(dir, e.name)] : []);
}

/** `path:` properties whose value is not a plain single-quoted literal (type annotations aside). */
function nonLiteralPaths(code: string): string[] {
  return [...code.matchAll(/\bpath:\s*(?!string\b)([^'\s][^,\n]*)/g)].map((m) => m[1]);
}

describe('route paths', () => {
  it('flags a constant and a template string, accepts a literal', () => {
    expect(nonLiteralPaths("route({ method: 'GET', path: BASE, auth: 'public' })")).toEqual(['BASE']);
    expect(nonLiteralPaths('route({ path: `${base}/{roleId}`, auth })')).toEqual(['`${base}/{roleId}`']);
    expect(nonLiteralPaths("route({ method: 'GET', path: '/api/org/{slug}/roles', auth })")).toEqual([]);
  });

  it('every route in core/ and plugins/ spells its path as a literal', () => {
    const files = [...routeFiles(join(ROOT, 'plugins')), ...routeFiles(join(ROOT, 'core'))];
    expect(files.length).toBeGreaterThan(25);
    const bad = files.flatMap((f) => nonLiteralPaths(readFileSync(f, 'utf8')).map((p) => `${relative(ROOT, f)}: path: ${p}`));
    expect(bad).toEqual([]);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/plugins.md: a plugin reaches the kernel only through `core/index.ts` (its worker task
 * modules through `core/worker-api.ts`), another plugin only through that plugin's `api.ts`, and
 * the signing box (`appliance/`) only through `appliance/api.ts`, so the kernel can change inside
 * and a plugin can be left out without breaking the others at import time. The kernel holds
 * mechanisms, not domain: it imports no plugin and no appliance file and names no plugin's tables;
 * plugins reach the kernel's tables (schema `core`) only through kernel services. `workers/`, where
 * the worker tasks once lived, is held to the kernel's rules should it come back.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PLUGINS = join(ROOT, 'plugins');
const CORE = join(ROOT, 'core');
/** The kernel's folders: core/, and workers/ when it exists. */
const KERNEL_DIRS = [CORE, join(ROOT, 'workers')].filter((dir) => existsSync(dir));
const kernelSources = () => KERNEL_DIRS.flatMap((dir) => sources(dir));
/** Postgres schema of each built-in plugin (its id, `-` → `_`). */
const PLUGIN_SCHEMAS = readdirSync(PLUGINS, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name.replaceAll('-', '_'));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** Relative module specifiers of static imports, re-exports and dynamic imports. */
function specifiers(code: string): string[] {
  return imports(code).map((i) => i.spec);
}

/**
 * Relative imports, re-exports and dynamic imports, each with whether it is type-only
 * (`import type … from`, `export type … from`: erased, nothing is loaded at run time).
 */
function imports(code: string): Array<{ spec: string; typeOnly: boolean }> {
  return [...code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => {
    const before = code.slice(0, m.index);
    const statement = code.slice(Math.max(before.lastIndexOf('import '), before.lastIndexOf('export ')));
    return { spec: m[1], typeOnly: m[0].startsWith('from') && /^(import|export)\s+type\s/.test(statement) };
  });
}

/** The published modules of the kernel and of the signing box: what a plugin may import of them. */
const PUBLISHED = ['core/index.ts', 'core/worker-api.ts', 'appliance/api.ts'];

/** Why `target` may not be imported from `file`, or null when it may. */
function violation(file: string, target: string): string | null {
  const rel = relative(ROOT, target).split(sep);
  const plugin = relative(PLUGINS, file).split(sep)[0];
  if (rel[0] === 'core') return PUBLISHED.includes(rel.join('/')) ? null : 'kernel internals (import core/index.ts, or core/worker-api.ts in a worker task)';
  if (rel[0] === 'appliance') return PUBLISHED.includes(rel.join('/')) ? null : 'appliance internals (import appliance/api.ts)';
  if (rel[0] === 'plugins' && rel[1] !== plugin) return rel[2] === 'api.ts' && rel.length === 3 ? null : `plugin ${rel[1]} internals (import plugins/${rel[1]}/api.ts)`;
  return null;
}

/** Why `target` may not be imported from the kernel file `file`, or null when it may. */
function kernelViolation(target: string): string | null {
  const top = relative(ROOT, target).split(sep)[0];
  return top === 'plugins' || top === 'appliance' ? `the kernel imports no ${top}/ file` : null;
}

/** Code without comments, so a comment that names a table or a plugin is not a violation. */
function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/**
 * Tables of `schemas` named in SQL: knex's `('schema.table'` (`knex(…)`, `.from(…)`, `.join(…)`),
 * `withSchema('schema')`, and raw SQL `from|into|update|join schema.table`.
 */
function tablesNamed(code: string, schemas: readonly string[]): string[] {
  const s = schemas.join('|');
  const patterns = [
    new RegExp(`\\(\\s*['"\`](?:${s})\\.[a-z_]+['"\`]`, 'g'),
    new RegExp(`withSchema\\(\\s*['"\`](?:${s})['"\`]`, 'g'),
    new RegExp(`\\b(?:from|into|update|join)\\s+(?:${s})\\.[a-z_]+`, 'gi'),
  ];
  return patterns.flatMap((re) => [...withoutComments(code).matchAll(re)].map((m) => m[0]));
}

describe('kernel boundaries', () => {
  it('finds SQL that names a schema, not comments or other dotted strings', () => {
    expect(tablesNamed(`knex('orgs.organizations').where({ slug })`, ['orgs'])).toHaveLength(1);
    expect(tablesNamed('insert into orgs.memberships (id) values (?)', ['orgs'])).toHaveLength(1);
    expect(tablesNamed(`s.withSchema('orgs').createTable('x')`, ['orgs'])).toHaveLength(1);
    expect(tablesNamed(`// reads orgs.organizations\nconst purpose = 'audit.checkpoint';`, ['orgs', 'audit'])).toEqual([]);
    expect(kernelViolation(join(ROOT, 'appliance/simulator/commands.ts'))).toMatch(/appliance/);
    expect(kernelViolation(join(ROOT, 'plugins/roost/index.ts'))).toMatch(/plugins/);
    expect(kernelViolation(join(ROOT, 'core/index.ts'))).toBeNull();
  });

  it('the kernel imports no plugin and no appliance file (core/, and workers/ should it exist)', () => {
    expect(KERNEL_DIRS[0]).toBe(CORE);
    const bad: string[] = [];
    for (const file of kernelSources()) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const why = kernelViolation(resolve(dirname(file), spec));
        if (why) bad.push(`${relative(ROOT, file)} → ${spec}: ${why}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("no kernel SQL names a plugin's schema", () => {
    expect(PLUGIN_SCHEMAS).toEqual(expect.arrayContaining(['accounts', 'orgs', 'audit']));
    const bad = kernelSources().flatMap((f) => tablesNamed(readFileSync(f, 'utf8'), PLUGIN_SCHEMAS).map((t) => `${relative(ROOT, f)}: ${t}`));
    expect(bad).toEqual([]);
  });

  it("plugins reach the kernel's tables (schema core) only through kernel services", () => {
    const bad = sources(PLUGINS).flatMap((f) => tablesNamed(readFileSync(f, 'utf8'), ['core']).map((t) => `${relative(ROOT, f)}: ${t}`));
    expect(bad).toEqual([]);
  });
});

describe('plugin import boundaries', () => {
  it('finds the plugins and their imports', () => {
    const files = sources(PLUGINS);
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap((f) => specifiers(readFileSync(f, 'utf8'))).some((s) => s.endsWith('core/index.ts'))).toBe(true);
  });

  it('flags a deep kernel import and a foreign plugin internal, allows core/index.ts and api.ts', () => {
    const file = join(PLUGINS, 'audit', 'routes', 'x.ts');
    expect(violation(file, join(ROOT, 'core/audit/read-chain.ts'))).toMatch(/kernel internals/);
    expect(violation(file, join(ROOT, 'plugins/orgs/models/organization.model.ts'))).toMatch(/plugin orgs internals/);
    expect(violation(file, join(ROOT, 'core/index.ts'))).toBeNull();
    expect(violation(file, join(ROOT, 'plugins/orgs/api.ts'))).toBeNull();
    expect(violation(file, join(ROOT, 'plugins/audit/errors.ts'))).toBeNull();
    expect(violation(file, join(ROOT, 'core/worker-api.ts'))).toBeNull();
    expect(violation(file, join(ROOT, 'core/workers/transferable.ts'))).toMatch(/kernel internals/);
    expect(violation(file, join(ROOT, 'appliance/api.ts'))).toBeNull();
    expect(violation(file, join(ROOT, 'appliance/ticket-issuer.ts'))).toMatch(/appliance internals/);
    expect(violation(file, join(ROOT, 'appliance/simulator/commands.ts'))).toMatch(/appliance internals/);
  });

  it('tells type-only imports from those loaded at run time', () => {
    expect(imports(`import type { A } from '../../core/index.ts';\nimport { b } from './b.ts';\nexport type { C } from './c.ts';\nexport { d } from './d.ts';\nconst e = await import('./e.ts');`))
      .toEqual([
        { spec: '../../core/index.ts', typeOnly: true }, { spec: './b.ts', typeOnly: false }, { spec: './c.ts', typeOnly: true },
        { spec: './d.ts', typeOnly: false }, { spec: './e.ts', typeOnly: false },
      ]);
    expect(imports(`import {\n  type A,\n  b,\n} from './x.ts';`)).toEqual([{ spec: './x.ts', typeOnly: false }]);
  });

  it('no plugin imports kernel internals or another plugin\'s internals', () => {
    const bad: string[] = [];
    for (const file of sources(PLUGINS)) {
      if (file.includes(`${sep}fixtures${sep}`)) continue;
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const why = violation(file, resolve(dirname(file), spec));
        if (why) bad.push(`${relative(ROOT, file)} → ${spec}: ${why}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('the signing box and worker tasks', () => {
  it('roost reaches appliance/ through appliance/api.ts alone', () => {
    const reached = sources(join(PLUGINS, 'roost')).flatMap((f) => specifiers(readFileSync(f, 'utf8'))
      .map((spec) => relative(ROOT, resolve(dirname(f), spec)).split(sep).join('/'))
      .filter((target) => target.startsWith('appliance/')));
    expect(reached.length).toBeGreaterThan(0);
    expect([...new Set(reached)]).toEqual(['appliance/api.ts']);
  });

  /** Files a module loads at run time through relative imports, itself included (type-only imports are not followed). */
  function loadedBy(file: string, seen = new Set<string>()): Set<string> {
    if (seen.has(file) || !existsSync(file)) return seen;
    seen.add(file);
    for (const { spec, typeOnly } of imports(withoutComments(readFileSync(file, 'utf8')))) {
      if (!typeOnly) loadedBy(resolve(dirname(file), spec), seen);
    }
    return seen;
  }
  const taskModules = () => [CORE, PLUGINS].flatMap((dir) => sources(dir)).filter((f) => f.endsWith('.task.ts') && !f.includes(`${sep}fixtures${sep}`));

  it('a worker task module loads no kernel: core/index.ts (dependency injection, HTTP, the database) only for types', () => {
    const tasks = taskModules();
    expect(tasks.map((f) => relative(ROOT, f).split(sep).join('/'))).toEqual(expect.arrayContaining(['core/audit/chain/seal-batch.task.ts', 'plugins/analytics/rollup-day.task.ts']));
    const index = join(CORE, 'index.ts');
    const bad = tasks.filter((task) => loadedBy(task).has(index)).map((f) => `${relative(ROOT, f)} loads core/index.ts at run time (use core/worker-api.ts, and import type from core/index.ts)`);
    expect(bad).toEqual([]);
    expect(loadedBy(join(PLUGINS, 'analytics', 'rollup-day.task.ts')).has(join(CORE, 'worker-api.ts'))).toBe(true);
  });
});

/** Folders outside the kernel whose scripts are checked for worker pools of their own. */
const OUTSIDE_CORE = ['plugins', 'workers', 'appliance', 'bench'].map((d) => join(ROOT, d)).filter((dir) => existsSync(dir));

/** TypeScript and JavaScript sources under `dir` (not node_modules, not build output). */
function scripts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : scripts(join(dir, e.name));
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [join(dir, e.name)] : [];
  });
}

/** Piscina pools a file builds (`new Piscina(`), not in comments. */
function piscinaPools(code: string): string[] {
  return [...withoutComments(code).matchAll(/new\s+Piscina\s*[(<]/g)].map((m) => m[0]);
}

/**
 * One worker-thread pool per process: `core.workers` (core/workers/). Nothing else builds a piscina
 * pool — not a plugin, not the signing box, not a bench (benches measure through `core.workers`,
 * their SHA-256 yardstick included, so what they measure is the pool the server runs).
 */
describe('one worker pool: core.workers', () => {
  it('finds a pool, not a comment', () => {
    expect(piscinaPools('const pool = new Piscina({ filename });')).toHaveLength(1);
    expect(piscinaPools('const pool = new Piscina<number, string>({ filename });')).toHaveLength(1);
    expect(piscinaPools('// never new Piscina( here\n/* nor new Piscina({}) */ run(task);')).toEqual([]);
  });

  it('no new Piscina( outside core/ (plugins/, workers/, appliance/, bench/), and in core/ only in core/workers/', () => {
    expect(OUTSIDE_CORE.map((d) => relative(ROOT, d))).toEqual(expect.arrayContaining(['plugins', 'appliance', 'bench']));
    const outside = OUTSIDE_CORE.flatMap((dir) => scripts(dir)).filter((f) => piscinaPools(readFileSync(f, 'utf8')).length > 0);
    expect(outside.map((f) => relative(ROOT, f))).toEqual([]);
    const inCore = scripts(CORE).filter((f) => piscinaPools(readFileSync(f, 'utf8')).length > 0).map((f) => relative(ROOT, f).split(sep).join('/'));
    expect(inCore).toEqual(['core/workers/worker-pool.ts']);
  });
});

/**
 * Mechanisms the kernel provides are used, not rebuilt: a permission check goes through
 * `core.authz` (which reads the grants provider), never a permission set a plugin builds or a
 * grants provider it reads itself; recurring work is a `core.jobs` schedule, never a timer.
 */
const KERNEL_SERVICES: Array<{ pattern: RegExp; use: string }> = [
  { pattern: /new PermissionSet\(/, use: 'core.authz (holds, require, permissionSet, setOf)' },
  { pattern: /extensions\(\s*coreExtensions\.grants\s*\)/, use: 'core.authz (plugins only contribute to coreExtensions.grants)' },
  { pattern: /\bsetInterval\(/, use: 'core.jobs schedule (once across processes, survives restarts)' },
  { pattern: /\bprincipal\.accountId!|\borg\.membership!/, use: "route()'s typed principal and org (AccountPrincipal, MemberOrgContext)" },
];

function kernelServiceCopies(code: string): string[] {
  const text = withoutComments(code);
  return KERNEL_SERVICES.filter(({ pattern }) => pattern.test(text)).map(({ pattern, use }) => `${pattern.source} — use ${use}`);
}

describe('plugins use the kernel services', () => {
  it('flags a permission set built in a plugin and a grants provider read by one, not a comment', () => {
    expect(kernelServiceCopies('const held = new PermissionSet(grants);')).toHaveLength(1);
    expect(kernelServiceCopies('const g = ctx.extensions(coreExtensions.grants);')).toHaveLength(1);
    expect(kernelServiceCopies('const sweep = setInterval(() => purge(), 600_000);')).toHaveLength(1);
    expect(kernelServiceCopies('await members.get(org.organization.id, principal.accountId!);')).toHaveLength(1);
    expect(kernelServiceCopies('// never new PermissionSet( here\nctx.extend(coreExtensions.grants, provider);')).toEqual([]);
  });

  it('no plugin builds a permission set, reads the grants provider or runs a timer of its own', () => {
    const bad = sources(PLUGINS).flatMap((f) => kernelServiceCopies(readFileSync(f, 'utf8')).map((why) => `${relative(ROOT, f)}: ${why}`));
    expect(bad).toEqual([]);
  });
});

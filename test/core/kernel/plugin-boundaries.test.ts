import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/plugins.md: a plugin reaches the kernel only through `core/index.ts` and another
 * plugin only through that plugin's `api.ts`, so the kernel can change inside and a plugin can be
 * left out without breaking the others at import time. The kernel holds mechanisms, not domain: it
 * imports no plugin and no appliance file and names no plugin's tables; plugins reach the kernel's
 * tables (schema `core`) only through kernel services.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PLUGINS = join(ROOT, 'plugins');
const CORE = join(ROOT, 'core');
/** Postgres schema of each built-in plugin (its id, `-` → `_`). */
const PLUGIN_SCHEMAS = readdirSync(PLUGINS, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name.replaceAll('-', '_'));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** Relative module specifiers of static imports, re-exports and dynamic imports. */
function specifiers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)) found.push(m[1]);
  return found;
}

/** Why `target` may not be imported from `file`, or null when it may. */
function violation(file: string, target: string): string | null {
  const rel = relative(ROOT, target).split(sep);
  const plugin = relative(PLUGINS, file).split(sep)[0];
  if (rel[0] === 'core') return rel.join('/') === 'core/index.ts' ? null : 'kernel internals (import core/index.ts)';
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

  it('the kernel imports no plugin and no appliance file', () => {
    const bad: string[] = [];
    for (const file of sources(CORE)) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const why = kernelViolation(resolve(dirname(file), spec));
        if (why) bad.push(`${relative(ROOT, file)} → ${spec}: ${why}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("no kernel SQL names a plugin's schema", () => {
    expect(PLUGIN_SCHEMAS).toEqual(expect.arrayContaining(['accounts', 'orgs', 'audit']));
    const bad = sources(CORE).flatMap((f) => tablesNamed(readFileSync(f, 'utf8'), PLUGIN_SCHEMAS).map((t) => `${relative(ROOT, f)}: ${t}`));
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

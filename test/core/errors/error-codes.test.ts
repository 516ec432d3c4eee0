import 'reflect-metadata';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineErrorCodes, registeredErrorCodes, type ErrorCode } from '../../../core/error-codes.ts';
import { aerieError, permissionDenied } from '../../../core/errors.ts';

/**
 * One error-code registry: every code the docs name exists in the registry with the status the docs
 * give it, and every registered code is documented. Docs name a code as an HTTP status followed by
 * the code in backticks: in a table row (`| 409 | \`SLUG_TAKEN\` | …`) or in prose (`400 \`INVALID_SCOPE\``).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CODE = /^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,}|[a-z]+(?:_[a-z]+)+)$/;

function markdown(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdown(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []);
}

/** `[status, code, where]` for every code a markdown text names after an HTTP status. */
function documentedCodes(text: string, file = ''): Array<[number, string, string]> {
  const found: Array<[number, string, string]> = [];
  for (const [i, line] of text.split('\n').entries()) {
    const where = `${file}:${i + 1}`;
    const row = /^\|\s*([1-5]\d\d)\s*\|([^|]*)\|/.exec(line);
    if (row) {
      for (const m of row[2].matchAll(/`([^`]+)`/g)) if (CODE.test(m[1])) found.push([Number(row[1]), m[1], where]);
      continue;
    }
    for (const m of line.matchAll(/\b([1-5]\d\d)\*{0,2}\s+\*{0,2}`([^`]+)`/g)) if (CODE.test(m[2])) found.push([Number(m[1]), m[2], where]);
  }
  return found;
}

describe('error-code registry', () => {
  let registry: ReturnType<typeof registeredErrorCodes>;
  let documented: Array<[number, string, string]>;

  beforeAll(async () => {
    // The registry holds the codes of the modules loaded so far: load every plugin's errors.ts.
    for (const plugin of readdirSync(join(ROOT, 'plugins'))) {
      const file = join(ROOT, 'plugins', plugin, 'errors.ts');
      if (existsSync(file)) await import(pathToFileURL(file).href);
    }
    // Other suites in this worker may have loaded partner plugins (fixtures): only Aerie's own owners count here.
    const own = new Set(['kernel', ...readdirSync(join(ROOT, 'plugins'))]);
    registry = new Map([...registeredErrorCodes()].filter(([, info]) => own.has(info.owner)));
    documented = markdown(join(ROOT, 'docs')).flatMap((f) => documentedCodes(readFileSync(f, 'utf8'), relative(ROOT, f)));
  });

  it('reads codes from table rows and prose, not other backticked words', () => {
    expect(documentedCodes('| 409 | `OWNER_PROTECTED`, `MEMBER_REVOKED` | see above |\n| `AERIE_PORT` | 8080 |')).toEqual([
      [409, 'OWNER_PROTECTED', ':1'], [409, 'MEMBER_REVOKED', ':1'],
    ]);
    expect(documentedCodes('else **400 `ROLE_KEY_RESERVED`** or 403 `seal_binding_mismatch` (+ `field`)').map(([s, c]) => [s, c]))
      .toEqual([[400, 'ROLE_KEY_RESERVED'], [403, 'seal_binding_mismatch']]);
  });

  it('has every plugin with an errors.ts and the kernel among its owners', () => {
    const owners = new Set([...registry.values()].map((i) => i.owner));
    expect([...owners].sort()).toEqual(['accounts', 'approvals', 'apps', 'audit', 'endusers', 'federation', 'files', 'kernel', 'keys', 'members', 'notifications', 'oidc', 'orgs', 'rbac', 'roost', 'teams', 'webhooks']);
  });

  it('knows every code the docs name, with the status the docs give it', () => {
    expect(documented.length).toBeGreaterThan(50);
    const unknown = documented.filter(([, code]) => !registry.has(code)).map(([s, c, w]) => `${w}: ${s} ${c}`);
    expect(unknown).toEqual([]);
    const wrongStatus = documented.filter(([s, code]) => registry.get(code)!.status !== s)
      .map(([s, c, w]) => `${w}: ${s} ${c} (registry: ${registry.get(c)!.status})`);
    expect(wrongStatus).toEqual([]);
  });

  it('has every registered code documented', () => {
    const named = new Set(documented.map(([, code]) => code));
    expect([...registry.keys()].filter((c) => !named.has(c))).toEqual([]);
  });

  it('refuses a code a second owner declares, and builds errors with the registered status', () => {
    expect(() => defineErrorCodes('partner', { SLUG_TAKEN: { status: 409, description: 'mine too' } }))
      .toThrow('error code SLUG_TAKEN of partner is already registered by orgs');
    expect(aerieError('SLUG_TAKEN' as ErrorCode, 'taken')).toMatchObject({ status: 409, code: 'SLUG_TAKEN', expose: true });
    expect(() => aerieError('NO_SUCH_CODE' as ErrorCode, 'x')).toThrow('error code NO_SUCH_CODE is not registered');
  });

  it('has plugins build their errors only in errors.ts (or with the kernel factories)', () => {
    const sources = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && e.name !== 'errors.ts' ? [join(dir, e.name)] : []);
    const bad = sources(join(ROOT, 'plugins')).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/new AerieError\(|aerieError\(|errorCode:/g)]
      .map((m) => `${relative(ROOT, f)}: ${m[0]}`));
    expect(bad).toEqual([]);
  });

  it('builds the PERMISSION_DENIED body in one place, with errorCode and required', () => {
    expect(permissionDenied('org.member.invite').fields).toEqual({ errorCode: 'PERMISSION_DENIED', required: 'org.member.invite' });
    expect(permissionDenied().fields).toEqual({ errorCode: 'PERMISSION_DENIED' });
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverPlugins } from '../../../core/plugins/discover.ts';
import { resolvePluginOrder } from '../../../core/plugins/resolve-order.ts';
import { BootError } from '../../../core/plugins/boot-error.ts';
import { KERNEL_API_VERSION } from '../../../core/plugins/manifest.ts';
import { TestAerie } from '../../helpers/harness.ts';

let root: string;
let builtIn: string;
let partners: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'aerie-plugins-'));
  builtIn = join(root, 'plugins');
  partners = join(root, 'partners');
  mkdirSync(builtIn);
  mkdirSync(partners);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes `<parent>/<folder>/plugin.json`: a valid manifest for `id` with `extra` merged in (string = raw file text). */
function writePlugin(parent: string, folder: string, extra: Record<string, unknown> | string = {}, id = folder): void {
  mkdirSync(join(parent, folder), { recursive: true });
  const manifest = typeof extra === 'string'
    ? extra
    : JSON.stringify({ id, version: '1.0.0', kernelApi: '^1.0.0', description: `Test plugin ${id}.`, entry: './index.ts', requires: [], ...extra }, null, 2);
  writeFileSync(join(parent, folder, 'plugin.json'), manifest);
}

const ids = (list: { manifest: { id: string } }[]) => list.map((p) => p.manifest.id);

describe('plugin discovery and ordering', () => {
  it('orders plugins after what they require, whatever their folder order', () => {
    writePlugin(builtIn, 'alpha', { requires: ['mid', 'zeta'] });
    writePlugin(builtIn, 'mid', { requires: ['zeta'] });
    writePlugin(builtIn, 'zeta');
    writePlugin(partners, 'beta', { requires: ['alpha'] });
    const found = discoverPlugins(builtIn, [partners]);
    expect(ids(found).sort()).toEqual(['alpha', 'beta', 'mid', 'zeta']);
    expect(found.find((p) => p.manifest.id === 'beta')).toMatchObject({ builtIn: false, dir: join(partners, 'beta') });
    expect(found.find((p) => p.manifest.id === 'zeta')).toMatchObject({ builtIn: true, dir: join(builtIn, 'zeta') });

    expect(ids(resolvePluginOrder(found))).toEqual(['zeta', 'mid', 'alpha', 'beta']);
    expect(ids(resolvePluginOrder(found, ['mid', 'zeta']))).toEqual(['zeta', 'mid']);
    expect(ids(resolvePluginOrder(found, []))).toEqual([]);
  });

  it('accepts a plugin path that is itself a plugin folder', () => {
    writePlugin(partners, 'solo');
    expect(ids(discoverPlugins(builtIn, [join(partners, 'solo')]))).toEqual(['solo']);
  });

  // [label, set-up, enabled set, words the one-line BootError must contain (<builtIn>, <partners>: the temporary folders)]
  it.each<[string, () => void, string[] | undefined, (string | RegExp)[]]>([
    ['a missing dependency', () => writePlugin(builtIn, 'billing', { requires: ['ledger'] }), undefined,
      ['plugin billing', 'ledger', 'not installed']],
    ['a disabled dependency', () => { writePlugin(builtIn, 'ledger'); writePlugin(builtIn, 'billing', { requires: ['ledger'] }); }, ['billing'],
      ['plugin billing', 'ledger', 'not enabled']],
    ['a dependency cycle', () => {
      writePlugin(builtIn, 'alpha', { requires: ['beta'] });
      writePlugin(builtIn, 'beta', { requires: ['gamma'] });
      writePlugin(builtIn, 'gamma', { requires: ['alpha'] });
      writePlugin(builtIn, 'delta');
    }, undefined,
      ['plugin alpha', 'cycle', 'alpha -> beta -> gamma -> alpha']],
    ['a plugin requiring itself', () => writePlugin(builtIn, 'narcissus', { requires: ['narcissus'] }), undefined,
      ['plugin narcissus', 'cycle', 'narcissus -> narcissus']],
    ['a duplicate id (built-in and partner)', () => { writePlugin(builtIn, 'accounts'); writePlugin(partners, 'accounts'); }, undefined,
      ['plugin accounts', 'duplicate id', '<builtIn>/accounts', '<partners>/accounts']],
    ['an id that differs from its folder', () => writePlugin(builtIn, 'hello', {}, 'goodbye'), undefined,
      ['plugin goodbye', 'folder', 'hello']],
    ['a manifest with an unknown field (strict schema)', () => writePlugin(builtIn, 'widget', { colour: 'blue' }), undefined,
      ['<builtIn>/widget/plugin.json', 'colour', 'not an accepted field']],
    ['a manifest missing a required field', () => writePlugin(builtIn, 'widget', { entry: undefined }), undefined,
      ['<builtIn>/widget/plugin.json', 'entry', 'required']],
    ['a manifest with an invalid id', () => writePlugin(builtIn, 'Widget', {}, 'Widget'), undefined,
      ['<builtIn>/Widget/plugin.json', 'id']],
    ['a manifest that is not JSON', () => writePlugin(builtIn, 'widget', '{\n  "id": "widget",\n  "version": \n}\n'), undefined,
      ['<builtIn>/widget/plugin.json', 'not valid JSON']],
    ['kernelApi ^9', () => writePlugin(partners, 'too-new', { kernelApi: '^9' }), undefined,
      ['plugin too-new', 'kernel API ^9', KERNEL_API_VERSION]],
    ['kernelApi that is not a semver range', () => writePlugin(builtIn, 'odd', { kernelApi: 'latest' }), undefined,
      ['plugin odd', 'latest', 'semver']],
    ['an enabled id that is not installed', () => writePlugin(builtIn, 'accounts'), ['accounts', 'ghost'],
      ['plugin ghost', 'not installed']],
  ])('refuses %s with one line naming plugin and reason', (_label, setUp, enabled, words) => {
    setUp();
    let caught: unknown;
    try {
      // An empty plugin path is itself refused, so pass it only when the row put a plugin in it.
      resolvePluginOrder(discoverPlugins(builtIn, readdirSync(partners).length ? [partners] : []), enabled);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(BootError);
    const message = (caught as Error).message;
    expect(message).not.toMatch(/[\r\n]/);
    for (const word of words) {
      if (typeof word === 'string') expect(message).toContain(word.replace('<builtIn>', builtIn).replace('<partners>', partners));
      else expect(message).toMatch(word);
    }
  });

  it('does not check plugins that are not enabled', () => {
    writePlugin(builtIn, 'accounts');
    writePlugin(builtIn, 'broken', { requires: ['ghost'], kernelApi: '^9' });
    expect(ids(resolvePluginOrder(discoverPlugins(builtIn, []), ['accounts']))).toEqual(['accounts']);
  });
});

describe('booting a subset of the real plugins', () => {
  it('without orgs: its routes answer 404 and its schema is never created', async () => {
    const aerie = await TestAerie.start({ plugins: ['accounts'], emptyDatabase: true });
    try {
      expect(aerie.kernel.plugins.map((p) => p.manifest.id)).toEqual(['accounts']);
      const ann = await aerie.signIn('ann@example.com');
      const res = await aerie.request('POST', '/api/org/create', { token: ann, body: { name: 'Acme', slug: 'acme' } });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'NOT_FOUND', message: expect.any(String) });
      const me = await aerie.request('GET', '/api/v1/users/me', { token: ann });
      expect(me.status).toBe(200);
      expect(me.body.organizations).toEqual([]);
      const schemas = (await aerie.sql<{ schema_name: string }>('select schema_name from information_schema.schemata')).map((r) => r.schema_name);
      expect(schemas).toContain('accounts');
      expect(schemas).not.toContain('orgs');
    } finally {
      await aerie.close();
    }
  });

  it('orgs without accounts: boot fails with one line naming both', async () => {
    const boot = TestAerie.start({ plugins: ['orgs'] });
    await expect(boot).rejects.toBeInstanceOf(BootError);
    const message = await boot.catch((err: Error) => err.message);
    expect(message).not.toMatch(/\n/);
    expect(message).toMatch(/plugin orgs: requires plugin accounts, which is not enabled/);
  });
});

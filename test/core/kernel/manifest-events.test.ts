import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/plugins.md (manifest field `events`: the event names a plugin emits): every audit event a
 * plugin emits is listed in its manifest. Emitted means an `eventType: '…'` literal in the
 * plugin's own code.
 */
const PLUGINS = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'plugins');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

const plugins = readdirSync(PLUGINS, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

describe('plugin manifests list the events their plugin emits', () => {
  it.each(plugins)('%s', (id) => {
    const emitted = new Set<string>();
    for (const file of sources(join(PLUGINS, id))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/eventType:\s*'([a-z0-9_.]+)'/g)) emitted.add(m[1]!);
    }
    const manifest = JSON.parse(readFileSync(join(PLUGINS, id, 'plugin.json'), 'utf8')) as { events?: string[] };
    const missing = [...emitted].filter((e) => !(manifest.events ?? []).includes(e)).sort();
    expect(missing, `plugins/${id}/plugin.json "events" lacks`).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { coreRefs } from '../../../core/core-refs.ts';
import type { Workers } from '../../../core/workers/workers.types.ts';
import { TestAerie } from '../../helpers/harness.ts';

/** The example of docs/plugins.md "Worker tasks (`core.workers`)", as a partner plugin. */
const FIXTURE = fileURLToPath(new URL('../../fixtures/workers-demo', import.meta.url));

describe('core.workers in a booted Aerie: a partner plugin\'s worker task (docs/plugins.md example)', () => {
  let aerie: TestAerie;
  let workers: Workers;
  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['workers-demo'], env: { AERIE_PLUGIN_PATHS: FIXTURE, AERIE_WORKERS_MAX_THREADS: '1' } });
    workers = aerie.kernel.container.resolve<Workers>(coreRefs.workers.id);
  });
  afterAll(() => aerie?.close());

  it('runs the plugin\'s task in a thread: the text\'s bytes moved there, the gzip moved back', async () => {
    const text = 'naïve café ☃ '.repeat(2000);
    const res = await aerie.request('POST', '/api/workers-demo/compress', { body: { text } });
    expect(res.status).toBe(200);
    expect(res.body.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(gunzipSync(Buffer.from(res.body.gzip, 'base64')).toString('utf8')).toBe(text);
    expect(res.body.sentBytesLeft).toBe(0);
  });

  it('sizes the pool from workers.maxThreads (AERIE_WORKERS_MAX_THREADS), holds the kernel\'s and the plugin\'s tasks, and is closed at shutdown', async () => {
    expect(workers.maxThreads).toBe(1);
    await expect(workers.run('workers-demo.nope', {})).rejects.toThrow('core.workers: no task "workers-demo.nope" is registered');
    expect(() => workers.register('workers-demo.compress', new URL('../../fixtures/workers-demo/workers-demo/compress.task.ts', import.meta.url)))
      .toThrow('task "workers-demo.compress" is already registered');
    expect(() => workers.register('core.audit.seal-batch', new URL('../../fixtures/workers-demo/workers-demo/compress.task.ts', import.meta.url)))
      .toThrow('already registered');
    await aerie.close();
    await expect(workers.run('workers-demo.compress', { bytes: new Uint8Array(1) })).rejects.toMatchObject({ name: 'WorkerTaskError', code: 'closed' });
  });
});

// The one worker-thread entry of core.workers (piscina's `filename`, ./worker-pool.ts). Plain ESM:
// worker threads get neither vitest's transform nor `--import tsx`. Each message names a task
// module (a `file:` URL resolved at registration, ./task-module.ts) and its input; the module is
// loaded once per thread — TypeScript through tsx's API, registered once per thread under its own
// namespace (no global loader state, one module graph for every task module of the thread), the
// compiled build's JavaScript with a plain import (tsx is never loaded there) — and its default
// export runs on the input. A result marked by `transferable` (./transferable.ts) has its buffers
// moved back, not copied. The compiled build (core/cli/build.mjs) copies this file as it is.
import { move, transferableSymbol, valueSymbol } from 'piscina';

const TRANSFER_MARK = Symbol.for('aerie.workers.transfer');

/** @type {Promise<{ import(specifier: string, parent: string): Promise<any> }> | undefined} */
let typescript;
/** @type {Map<string, (input: unknown) => unknown>} module href → its default export, once loaded */
const loaded = new Map();
/** @type {Map<string, Promise<(input: unknown) => unknown>>} module href → its default export, while loading */
const loading = new Map();

function loadTypeScript() {
  typescript ??= import('tsx/esm/api').then(({ register }) => register({ namespace: 'aerie-workers' }));
  return typescript;
}

function load(href) {
  let pending = loading.get(href);
  if (!pending) {
    pending = (async () => {
      const mod = /\.[cm]?ts$/.test(href) ? await (await loadTypeScript()).import(href, import.meta.url) : await import(href);
      if (typeof mod.default !== 'function') throw new TypeError(`core.workers: task module ${href} has no default export function`);
      loaded.set(href, mod.default);
      return mod.default;
    })();
    // A module that failed to load is tried again on its next task.
    pending.catch(() => loading.delete(href));
    loading.set(href, pending);
  }
  return pending;
}

/** The result as piscina posts it: with the buffers a `transferable` mark names moved, not copied. */
function posted(result) {
  const buffers = result !== null && typeof result === 'object' ? result[TRANSFER_MARK] : undefined;
  if (!buffers) return result;
  return move({
    get [transferableSymbol]() { return buffers; },
    get [valueSymbol]() { return result; },
  });
}

/** The piscina handler: `({ module: href, input }) => result of module's default export(input)`. */
export default function runTask({ module, input }) {
  const fn = loaded.get(module);
  if (!fn) return load(module).then((f) => f(input)).then(posted);
  const result = fn(input);
  return result instanceof Promise ? result.then(posted) : posted(result);
}

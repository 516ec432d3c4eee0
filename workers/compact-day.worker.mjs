// Piscina entry for ./compact-day.ts, like ./seal-chain.worker.mjs: in the repository the
// TypeScript task module is loaded through tsx's namespaced `tsImport`; the compiled build
// (core/cli/build.mjs) copies this file beside the compiled `compact-day.js` and no `.ts`, and
// there it imports the JavaScript directly.
import { existsSync } from 'node:fs';

const mod = existsSync(new URL('./compact-day.ts', import.meta.url))
  ? await (await import('tsx/esm/api')).tsImport('./compact-day.ts', import.meta.url)
  : await import('./compact-day.js');

/** The piscina handler: `(task: {records, day, checkpoints}) => {bytes, sha256, meta}`. */
export default mod.default;

// Piscina entry for ./rollup-day.ts, like ./seal-chain.worker.mjs: in the repository the
// TypeScript task module is loaded through tsx's namespaced `tsImport`; the compiled build
// (core/cli/build.mjs) copies this file beside the compiled `rollup-day.js` and no `.ts`, and
// there it imports the JavaScript directly.
import { existsSync } from 'node:fs';

const mod = existsSync(new URL('./rollup-day.ts', import.meta.url))
  ? await (await import('tsx/esm/api')).tsImport('./rollup-day.ts', import.meta.url)
  : await import('./rollup-day.js');

/** The piscina handlers: `(task: {bytes}) => {orgId, day, rollups}`, and `forensicDay` (`{bytes, appGroupId, email}` → rows). */
export default mod.default;
export const forensicDay = mod.forensicDay;

// Piscina entry for ./seal-chain.ts. Worker threads do not get vitest's transform and need not
// have been started with `--import tsx`, so in the repository this plain-ESM bootstrap loads the
// TypeScript task module through tsx's namespaced `tsImport` (it changes no global loader state and
// works whether or not the thread already has tsx registered). The compiled build (`npm run build`,
// core/cli/build.mjs) copies this file beside the compiled `seal-chain.js` and no `.ts`: there it
// imports the JavaScript directly and tsx is never loaded.
import { existsSync } from 'node:fs';

const mod = existsSync(new URL('./seal-chain.ts', import.meta.url))
  ? await (await import('tsx/esm/api')).tsImport('./seal-chain.ts', import.meta.url)
  : await import('./seal-chain.js');

/** The piscina handler: `(task: {prevHash, records}) => {sealed, head}`. */
export default mod.default;

/** Named handler (`run(task, { name: 'sealChainPacked' })`): `(task) => {ids, hashes, head}`. */
export const sealChainPacked = mod.sealChainPacked;

/** Named handler (`run(task, { name: 'renderIngestTask' })`): `({rows, options}) => RenderedIngest | {problem}`. */
export const renderIngestTask = mod.renderIngestTask;

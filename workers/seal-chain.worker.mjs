// Piscina entry for ./seal-chain.ts. Worker threads do not get vitest's transform and need not
// have been started with `--import tsx`, so this plain-ESM bootstrap loads the TypeScript task
// module through tsx's namespaced `tsImport` (it changes no global loader state and works whether
// or not the thread already has tsx registered).
import { tsImport } from 'tsx/esm/api';

const mod = await tsImport('./seal-chain.ts', import.meta.url);

/** The piscina handler: `(task: {prevHash, records}) => {sealed, head}`. */
export default mod.default;

/** Named handler (`run(task, { name: 'sealChainPacked' })`): `(task) => {ids, hashes, head}`. */
export const sealChainPacked = mod.sealChainPacked;

/** Named handler (`run(task, { name: 'payloadHashesV2Task' })`): `({events}) => hashes`. */
export const payloadHashesV2Task = mod.payloadHashesV2Task;

import semver from 'semver';
import type { DiscoveredPlugin } from './manifest.ts';
import { KERNEL_API_VERSION } from './manifest.ts';
import { BootError } from './boot-error.ts';

/**
 * Chooses the enabled plugins and orders them so each comes after what it `requires`.
 * @param enabled ids to enable; `undefined` enables every discovered plugin.
 * @throws BootError for an unknown enabled id, a missing or disabled dependency, a cycle, or a
 *   `kernelApi` range this kernel (`KERNEL_API_VERSION`) does not satisfy.
 */
export function resolvePluginOrder(all: DiscoveredPlugin[], enabled?: string[]): DiscoveredPlugin[] {
  const byId = new Map(all.map((p) => [p.manifest.id, p]));
  const enabledIds = new Set(enabled ?? all.map((p) => p.manifest.id));
  for (const id of enabledIds) {
    if (!byId.has(id)) throw new BootError(`plugin ${id}: enabled but not installed`);
  }
  const chosen = all.filter((p) => enabledIds.has(p.manifest.id));
  for (const p of chosen) {
    const { id, kernelApi } = p.manifest;
    if (!semver.validRange(kernelApi)) throw new BootError(`plugin ${id}: kernelApi "${kernelApi}" is not a semver range`);
    if (!semver.satisfies(KERNEL_API_VERSION, kernelApi)) {
      throw new BootError(`plugin ${id}: requires kernel API ${kernelApi}, this kernel provides ${KERNEL_API_VERSION}`);
    }
    for (const dep of p.manifest.requires) {
      if (!byId.has(dep)) throw new BootError(`plugin ${id}: requires plugin ${dep}, which is not installed`);
      if (!enabledIds.has(dep)) throw new BootError(`plugin ${id}: requires plugin ${dep}, which is not enabled`);
    }
  }
  const ordered: DiscoveredPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: DiscoveredPlugin, path: string[]) => {
    const id = p.manifest.id;
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(id)), id].join(' -> ');
      throw new BootError(`plugin ${id}: dependency cycle ${cycle}`);
    }
    state.set(id, 'visiting');
    for (const dep of p.manifest.requires) visit(byId.get(dep)!, [...path, id]);
    state.set(id, 'done');
    ordered.push(p);
  };
  for (const p of chosen) visit(p, []);
  return ordered;
}

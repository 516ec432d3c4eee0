import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WorkerTaskError } from './workers.types.ts';

/**
 * The module a thread loads for a registered task: `module` itself when the file exists, else the
 * compiled `.js` sibling of a `.ts` module (the build, core/cli/build.mjs, holds no TypeScript).
 *
 * @param name - the task's name, for the error.
 * @param module - a `file:` URL.
 * @returns the `file:` URL (href) of the module to load.
 * @throws WorkerTaskError `module_not_found` when `module` is not a `file:` URL or neither file exists.
 */
export function taskModuleHref(name: string, module: URL): string {
  if (module.protocol !== 'file:') throw new WorkerTaskError('module_not_found', `core.workers: task "${name}": ${module.href} is not a file: URL`);
  if (existsSync(fileURLToPath(module))) return module.href;
  if (/\.[cm]?ts$/.test(module.pathname)) {
    const compiled = new URL(module.href.replace(/\.([cm]?)ts$/, '.$1js'));
    if (existsSync(fileURLToPath(compiled))) return compiled.href;
  }
  throw new WorkerTaskError('module_not_found', `core.workers: task "${name}": no module at ${fileURLToPath(module)}`);
}

/**
 * TypeScript partner plugins in the compiled build (`dist/`, core/cli/build.mjs).
 *
 * The compiled process loads no TypeScript machinery. A partner plugin (`AERIE_PLUGIN_PATHS`) whose
 * entry is a `.ts` file makes it register tsx, once, and the resolve hook below: an import that
 * names one of Aerie's own source modules (the plugin's `../../core/index.ts`, another plugin's
 * `api.ts`) is answered with the compiled module that the process already runs, so the plugin
 * shares the kernel's module instances (refs, error codes, registries) instead of loading a second
 * copy of the kernel from the sources. The plugin's own files are compiled by tsx.
 *
 * This module is also the hooks module that `module.register` loads (it exports `initialize` and
 * `resolve`); it is only ever used from the compiled build.
 */
import { existsSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { join, resolve as resolvePath, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../repo-root.ts';

let enabling: Promise<void> | undefined;

/**
 * Makes `.ts` modules importable in the compiled process: registers tsx (with the source tree's
 * tsconfig.json when present) and the redirect of Aerie's source modules to their compiled
 * counterparts. Idempotent: later calls return the first call's promise.
 * @returns a promise resolved once both are registered.
 * @throws (rejects) when tsx cannot be imported.
 */
export function enableTypeScriptPlugins(): Promise<void> {
  enabling ??= (async () => {
    const source = buildSource();
    const { register: registerTsx } = await import('tsx/esm/api');
    const tsconfig = source ? join(source, 'tsconfig.json') : undefined;
    registerTsx(tsconfig && existsSync(tsconfig) ? { tsconfig } : {});
    if (source) register(import.meta.url, { data: { source: dirUrl(source), compiled: dirUrl(REPO_ROOT) } satisfies RedirectData });
  })();
  return enabling;
}

/** The source tree the build was made from, as its stamp records it (undefined without a stamp). */
function buildSource(): string | undefined {
  try {
    const stamp = JSON.parse(readFileSync(join(REPO_ROOT, '.aerie-build.json'), 'utf8')) as { source?: string };
    return stamp.source === undefined ? undefined : resolvePath(REPO_ROOT, stamp.source);
  } catch {
    return undefined;
  }
}

function dirUrl(dir: string): string {
  return pathToFileURL(dir.endsWith(sep) ? dir : dir + sep).href;
}

/** What the hooks thread receives: both roots as `file:` URLs ending in `/`. */
interface RedirectData {
  source: string;
  compiled: string;
}

let roots: RedirectData | undefined;

/** Hooks-thread initializer (`module.register`): keeps the two roots. */
export function initialize(data: RedirectData): void {
  roots = data;
}

type Resolved = { url: string; format?: string | null; shortCircuit?: boolean };

/**
 * Resolve hook: a relative, absolute or `file:` specifier that names a `.ts` file in the source tree
 * whose compiled `.js` exists in the build resolves to that `.js`; anything else goes on to tsx and Node.
 */
export async function resolve(
  specifier: string,
  context: { parentURL?: string },
  next: (specifier: string, context: { parentURL?: string }) => Promise<Resolved>,
): Promise<Resolved> {
  if (roots && context.parentURL && /^(\.{1,2}\/|\/|file:)/.test(specifier) && specifier.endsWith('.ts')) {
    const url = new URL(specifier, context.parentURL);
    if (url.href.startsWith(roots.source)) {
      const compiled = new URL(url.href.slice(roots.source.length).replace(/\.ts$/, '.js'), roots.compiled);
      if (existsSync(compiled)) return { url: compiled.href, format: 'module', shortCircuit: true };
    }
  }
  return next(specifier, context);
}

import type { Logger } from 'pino';
/** A class whose constructor parameters are all `@inject(ref.id)`. */
type constructor<T> = new (...args: any[]) => T;
import type { AerieConfig } from '../config/config.types.ts';
import type { AuthScheme } from '../http/auth-scheme.ts';
import type { RouteDef } from '../http/route.ts';
import type { ExtensionPointRef, ServiceRef } from '../refs.ts';
import type { PluginManifest } from './manifest.ts';

/** Resolved dependency values for a `deps` map of service refs. */
export type ResolvedDeps<D> = { [K in keyof D]: D[K] extends ServiceRef<infer T> ? T : never };

/** Declarations made before any plugin initialises. */
export interface PluginRegistrar {
  /** Registers a singleton class; its constructor takes `@inject(ref.id)` parameters. */
  service<T>(ref: ServiceRef<T>, impl: constructor<T>): void;
}

/** What `init` is given besides its dependencies. */
export interface PluginContext {
  id: string;
  manifest: PluginManifest;
  /** Manifests of every enabled plugin, in boot order (e.g. rbac builds its scope catalog from their `permissions`). */
  plugins: readonly PluginManifest[];
  /** Absolute folder of the plugin's `plugin.json`. */
  dir: string;
  config: AerieConfig;
  logger: Logger;
  /** Adds routes (see `route()` in core/http/route.ts). */
  routes(...defs: RouteDef[]): void;
  /** Publishes a service value under `ref` for plugins initialised after this one. */
  provide<T>(ref: ServiceRef<T>, value: T): void;
  /** Registers an auth scheme routes can name in `auth`. */
  authScheme(scheme: AuthScheme): void;
  /** Contributes a value to an extension point. */
  extend<T>(point: ExtensionPointRef<T>, value: T): void;
  /** Every value contributed to `point` so far (a live array: later contributions appear). */
  extensions<T>(point: ExtensionPointRef<T>): readonly T[];
  /** Runs `fn` on shutdown, in reverse order of registration. */
  onShutdown(fn: () => Promise<void> | void): void;
}

/** A plugin: its id (equal to the manifest's), typed dependencies, and its lifecycle hooks. */
export interface PluginDefinition<D extends Record<string, ServiceRef<any>> = Record<string, ServiceRef<any>>> {
  id: string;
  deps?: D;
  register?(reg: PluginRegistrar): void;
  init(deps: ResolvedDeps<D>, ctx: PluginContext): void | Promise<void>;
}

/**
 * Declares a plugin; the default export of a plugin's entry module.
 * @example export default definePlugin({ id: 'orgs', deps: { db: coreRefs.db }, init({ db }, ctx) { ctx.routes(...) } });
 */
export function definePlugin<D extends Record<string, ServiceRef<any>>>(def: PluginDefinition<D>): PluginDefinition<D> {
  return def;
}

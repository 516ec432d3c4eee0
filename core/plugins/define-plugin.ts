import type { Command } from 'commander';
import type { Logger } from 'pino';
import type { AerieConfig } from '../config/config.types.ts';
import type { CryptoService } from '../crypto/index.ts';
import type { AuthScheme } from '../http/auth-scheme.ts';
import type { RouteDef } from '../http/route.ts';
import type { ExtensionPointRef, ServiceRef } from '../refs.ts';
import type { PluginManifest } from './manifest.ts';

/** A class whose constructor parameters are all `@inject(ref.id)`. */
type constructor<T> = new (...args: any[]) => T;

/** Resolved dependency values for a `deps` map of service refs. */
export type ResolvedDeps<D> = { [K in keyof D]: D[K] extends ServiceRef<infer T> ? T : never };

/** Declarations made before any plugin initialises. */
export interface PluginRegistrar {
  /** Manifests of every enabled plugin, in boot order (as `ctx.plugins`). */
  plugins: readonly PluginManifest[];
  /** Registers a singleton class; its constructor takes `@inject(ref.id)` parameters. */
  service<T>(ref: ServiceRef<T>, impl: constructor<T>): void;
  /** Registers a ready value (e.g. a table computed from `plugins`) a service may `@inject(ref.id)`. */
  value<T>(ref: ServiceRef<T>, value: T): void;
  /**
   * Declares an extension point this plugin owns. Its contributions (`ctx.extend`) become injectable
   * as `@inject(point.id) values: readonly T[]` — a live array in contribution order, since plugins
   * initialised later contribute after the service is made. This is the one way a service receives
   * an extension point.
   */
  extensionPoint<T>(point: ExtensionPointRef<T>): void;
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
  /**
   * The top-level configuration keys this plugin's manifest `config` schema owns, validated with
   * their defaults (`{}` without a schema); also injectable as the service `<pluginId>.config`.
   * `T` is the plugin's own type for them (the kernel validated them against its schema).
   * @example const { roost } = ctx.pluginConfig<{ roost: { rearmKey?: string } }>();
   */
  pluginConfig<T extends object = Record<string, unknown>>(): Readonly<T>;
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
  /**
   * Runs `fn` once the kernel has booted and started its background jobs (`core.jobs`): the place
   * to queue a job at boot, since `jobs.send` during `init` would start the workers before later
   * plugins defined theirs. An error is logged, never fails the boot.
   */
  onStarted(fn: () => Promise<void> | void): void;
}

/** A booted Aerie, for commands that need the database: resolve services, then close. */
export interface BootedAerie {
  /** The service registered under `ref` (kernel or any enabled plugin). @throws when none is. */
  resolve<T>(ref: ServiceRef<T>): T;
  /** Graceful shutdown (drains the audit sealer, closes the database). */
  close(): Promise<void>;
}

/** What a plugin's `commands` hook gets from the kernel CLI. Each member does its work only when called. */
export interface CommandEnvironment {
  /** The validated configuration (`aerie.config.json` and `AERIE_*` variables). */
  config: AerieConfig;
  /** This plugin's own configuration keys, validated (as `ctx.pluginConfig()`). */
  pluginConfig<T extends object = Record<string, unknown>>(): Readonly<T>;
  /** `core.crypto` under the configured master key (or the one kept in the data dir), without booting. */
  crypto(): CryptoService;
  /** Boots Aerie from the environment, as `aerie serve` does but without HTTP. */
  boot(): Promise<BootedAerie>;
}

/** A plugin: its id (equal to the manifest's), typed dependencies, and its lifecycle hooks. */
export interface PluginDefinition<D extends Record<string, ServiceRef<any>> = Record<string, ServiceRef<any>>> {
  id: string;
  deps?: D;
  register?(reg: PluginRegistrar): void;
  init(deps: ResolvedDeps<D>, ctx: PluginContext): void | Promise<void>;
  /**
   * Adds the plugin's `aerie …` commands (commander). Called by the kernel CLI for enabled plugins
   * only, before any command runs; do I/O in the command's action, not here.
   */
  commands?(program: Command, env: CommandEnvironment): void;
}

/**
 * Declares a plugin; the default export of a plugin's entry module.
 * @example export default definePlugin({ id: 'orgs', deps: { db: coreRefs.db }, init({ db }, ctx) { ctx.routes(...) } });
 */
export function definePlugin<D extends Record<string, ServiceRef<any>>>(def: PluginDefinition<D>): PluginDefinition<D> {
  return def;
}

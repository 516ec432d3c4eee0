import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { AerieConfig } from './config.types.ts';
import { ENV_BINDINGS, type EnvBinding } from './env-map.ts';
import { readPluginConfigSchemas } from './plugin-config.ts';
import { createAjv, describeAjvError } from '../validation.ts';
import { discoverPlugins } from '../plugins/discover.ts';
import type { DiscoveredPlugin } from '../plugins/manifest.ts';
import { REPO_ROOT } from '../repo-root.ts';

const require = createRequire(import.meta.url);
const configSchema = require('../../schemas/config.schema.json') as { properties: Record<string, object> } & Record<string, unknown>;
const KERNEL_KEYS = Object.keys(configSchema.properties).filter((k) => k !== '$schema');

/** Thrown when configuration is invalid; `message` is one line naming the key (and variable). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  /** Folder holding `aerie.config.json` and the base for relative paths. Default: `process.cwd()`. */
  cwd?: string;
  /** Environment to read `AERIE_*` from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** Values that win over file and environment (tests, CLI flags). */
  overrides?: Record<string, unknown>;
  /** Folder of the built-in plugins. Default: the repository's `plugins/`. */
  builtInPlugins?: string;
}

/** The configuration, the plugins it found, and each plugin's own validated keys. */
export interface LoadedConfiguration {
  /** The kernel's keys, validated, with derived URLs. */
  config: AerieConfig;
  /** Every discovered plugin (built-in and `plugins.paths`), enabled or not. */
  plugins: DiscoveredPlugin[];
  /** The keys a plugin's `config` schema owns, validated with defaults (`{}` when it has none). */
  pluginConfig(pluginId: string): Readonly<Record<string, unknown>>;
}

/**
 * Loads `aerie.config.json` (or the file named by `AERIE_CONFIG`), overlays `AERIE_*` variables and
 * overrides, validates the kernel's keys against `schemas/config.schema.json`, discovers the plugins
 * and validates the keys each one's `config` schema owns (their variables included), and derives
 * the URLs. Environment wins over the file; overrides win over both.
 * @throws ConfigError naming the first invalid key (and the variable that set it).
 * @throws BootError from plugin discovery, or for a plugin config schema that claims a taken key.
 */
export function loadConfiguration(options: LoadConfigOptions = {}): LoadedConfiguration {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const raw = readConfigFile(cwd, env);
  const envNames = new Map<string, string>();
  const overlay = (bindings: readonly EnvBinding[]) => {
    for (const binding of bindings) {
      const value = env[binding.env];
      if (value === undefined || value === '') continue;
      setPath(raw, binding.key, parseEnv(binding, value));
      envNames.set(binding.key, binding.env);
    }
    for (const [key, value] of Object.entries(options.overrides ?? {})) setPath(raw, key, value);
  };
  overlay(ENV_BINDINGS);
  // The kernel's keys first: `plugins.paths` must be valid before plugins are looked for.
  validate({ ...configSchema, additionalProperties: true }, raw, envNames);
  const kernel = derive(pick(raw, KERNEL_KEYS) as unknown as AerieConfig, cwd);
  const plugins = discoverPlugins(options.builtInPlugins ?? join(REPO_ROOT, 'plugins'), kernel.plugins.paths);
  const schemas = readPluginConfigSchemas(plugins, KERNEL_KEYS);
  overlay(schemas.flatMap((s) => s.env));
  validate({ ...configSchema, properties: { ...configSchema.properties, ...Object.assign({}, ...schemas.map((s) => s.properties)) } }, raw, envNames);
  const sections = new Map(schemas.map((s) => [s.pluginId, Object.freeze(pick(raw, Object.keys(s.properties)))]));
  return { config: kernel, plugins, pluginConfig: (id) => sections.get(id) ?? Object.freeze({}) };
}

/** {@link loadConfiguration}'s kernel configuration alone. @throws as {@link loadConfiguration}. */
export function loadConfig(options: LoadConfigOptions = {}): AerieConfig {
  return loadConfiguration(options).config;
}

/** Every environment variable the kernel and the discovered plugins read (README's table lists them). */
export function envBindings(loaded: Pick<LoadedConfiguration, 'plugins'>): EnvBinding[] {
  return [...ENV_BINDINGS, ...readPluginConfigSchemas(loaded.plugins, KERNEL_KEYS).flatMap((s) => s.env)];
}

function readConfigFile(cwd: string, env: Record<string, string | undefined>): Record<string, unknown> {
  const file = env.AERIE_CONFIG ? resolve(cwd, env.AERIE_CONFIG) : resolve(cwd, 'aerie.config.json');
  if (existsSync(file)) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      // V8 quotes the offending source, newlines included: keep the error on one line.
      throw new ConfigError(`invalid config: ${file} is not valid JSON (${oneLine((err as Error).message)})`);
    }
  }
  if (env.AERIE_CONFIG) throw new ConfigError(`invalid config: AERIE_CONFIG names ${file}, which does not exist`);
  return {};
}

function validate(schema: object, raw: Record<string, unknown>, envNames: Map<string, string>): void {
  const ajv = createAjv();
  ajv.addKeyword('env');
  const check = ajv.compile(schema);
  if (check(raw)) return;
  const { field, message } = describeAjvError(check.errors, 'config');
  // Array items are reported as `platformAdmins.0`: name the variable that set the array.
  const envName = [...envNames].find(([key]) => field === key || field.startsWith(`${key}.`))?.[1];
  throw new ConfigError(`invalid config: ${message}${envName ? ` (from ${envName})` : ''}`);
}

function pick(raw: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

function parseEnv(binding: EnvBinding, value: string): unknown {
  if (binding.kind === 'integer') return /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (binding.kind === 'list') return value.split(',').map((s) => s.trim()).filter(Boolean);
  // `1`/`true`/`yes` and `0`/`false`/`no`; anything else stays a string for the schema to refuse.
  if (binding.kind === 'boolean') return /^(1|true|yes)$/i.test(value.trim()) ? true : /^(0|false|no)$/i.test(value.trim()) ? false : value;
  return value;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
}

function derive(config: AerieConfig, cwd: string): AerieConfig {
  const baseUrl = (config.baseUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  return {
    ...config,
    baseUrl,
    loginUrl: config.loginUrl ?? baseUrl,
    dashboardUrl: config.dashboardUrl ?? baseUrl,
    shareUrl: config.shareUrl ?? baseUrl,
    marketplaceUrl: config.marketplaceUrl ?? baseUrl,
    dataDir: resolve(cwd, config.dataDir),
    platformAdmins: config.platformAdmins.map((e) => e.toLowerCase()),
    plugins: {
      ...config.plugins,
      paths: config.plugins.paths.map((p) => resolve(cwd, p)),
    },
    webauthn: {
      ...config.webauthn,
      rpId: config.webauthn.rpId ?? new URL(baseUrl).hostname,
      origins: config.webauthn.origins ?? [origin],
    },
  };
}

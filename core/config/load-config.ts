import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { AerieConfig } from './config.types.ts';
import { ENV_BINDINGS, type EnvBinding } from './env-map.ts';
import { createAjv, describeAjvError } from '../validation.ts';

const require = createRequire(import.meta.url);
const configSchema = require('../../schemas/config.schema.json') as object;

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
}

/**
 * Loads `aerie.config.json` (or the file named by `AERIE_CONFIG`), overlays `AERIE_*` variables and
 * overrides, validates against `schemas/config.schema.json` and derives the URLs.
 * @throws ConfigError naming the first invalid key.
 */
export function loadConfig(options: LoadConfigOptions = {}): AerieConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const file = env.AERIE_CONFIG ? resolve(cwd, env.AERIE_CONFIG) : resolve(cwd, 'aerie.config.json');
  let raw: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      // V8 quotes the offending source, newlines included: keep the error on one line.
      throw new ConfigError(`invalid config: ${file} is not valid JSON (${oneLine((err as Error).message)})`);
    }
  } else if (env.AERIE_CONFIG) {
    throw new ConfigError(`invalid config: AERIE_CONFIG names ${file}, which does not exist`);
  }
  const envNames = new Map<string, string>();
  for (const binding of ENV_BINDINGS) {
    const value = env[binding.env];
    if (value === undefined || value === '') continue;
    setPath(raw, binding.key, parseEnv(binding, value));
    envNames.set(binding.key, binding.env);
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) setPath(raw, key, value);

  const validate = createAjv().compile(configSchema);
  if (!validate(raw)) {
    const { field, message } = describeAjvError(validate.errors, 'config');
    // Array items are reported as `platformAdmins.0`: name the variable that set the array.
    const envName = [...envNames].find(([key]) => field === key || field.startsWith(`${key}.`))?.[1];
    throw new ConfigError(`invalid config: ${message}${envName ? ` (from ${envName})` : ''}`);
  }
  return derive(raw as unknown as AerieConfig, cwd);
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

function parseEnv(binding: EnvBinding, value: string): unknown {
  if (binding.kind === 'integer') return /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (binding.kind === 'list') return value.split(',').map((s) => s.trim()).filter(Boolean);
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

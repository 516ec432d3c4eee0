import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, envBindings, loadConfig, loadConfiguration, type LoadConfigOptions } from '../../../core/config/load-config.ts';
import { BootError } from '../../../core/plugins/boot-error.ts';
import { resolveMasterKey } from '../../../core/crypto/master-key.ts';
import { REPO_ROOT } from '../../../core/kernel.ts';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'aerie-config-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const writeConfigFile = (content: unknown, name = 'aerie.config.json') =>
  writeFileSync(join(cwd, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));

/**
 * The configuration as the file lays it out: the kernel's keys and every plugin's own keys
 * (`billing` from orgs, `session` from accounts, `roost` from roost) side by side.
 */
function allKeys(options: LoadConfigOptions): Record<string, any> {
  const loaded = loadConfiguration(options);
  return Object.assign({}, loaded.config, ...loaded.plugins.map((p) => loaded.pluginConfig(p.manifest.id)));
}

/** Runs `fn` and returns the ConfigError it throws (fails the test when it throws nothing else). */
function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

describe('loadConfig: defaults', () => {
  it('runs on embedded defaults with no file and no environment', () => {
    const config = allKeys({ cwd, env: {} });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      baseUrl: 'http://localhost:3000',
      loginUrl: 'http://localhost:3000',
      dashboardUrl: 'http://localhost:3000',
      shareUrl: 'http://localhost:3000',
      marketplaceUrl: 'http://localhost:3000',
      dataDir: resolve(cwd, 'data'),
      platformAdmins: [],
      plugins: { paths: [] },
      billing: { defaultPlan: 'Free' },
      webauthn: { rpId: 'localhost', rpName: 'Aerie', origins: ['http://localhost:3000'] },
      session: { idleTtlSeconds: 604800, absoluteTtlSeconds: 2592000 },
      log: { level: 'info' },
      audit: { ingestThreads: 0 },
      workers: { maxThreads: 2 },
      roost: {},
    });
    expect(config.plugins.enabled).toBeUndefined();
    expect(config.databaseUrl).toBeUndefined();
    expect(config.masterKey).toBeUndefined();
  });

  it('derives baseUrl from the port, and the other URLs and WebAuthn RP from baseUrl', () => {
    expect(loadConfig({ cwd, env: { PORT: '4100' } })).toMatchObject({
      port: 4100, baseUrl: 'http://localhost:4100', loginUrl: 'http://localhost:4100', webauthn: { rpId: 'localhost', origins: ['http://localhost:4100'] },
    });
    const config = loadConfig({ cwd, env: { AERIE_BASE_URL: 'https://id.example.com:8443/' } });
    expect(config).toMatchObject({
      baseUrl: 'https://id.example.com:8443',
      loginUrl: 'https://id.example.com:8443',
      dashboardUrl: 'https://id.example.com:8443',
      shareUrl: 'https://id.example.com:8443',
      webauthn: { rpId: 'id.example.com', origins: ['https://id.example.com:8443'] },
    });
  });

  it('keeps explicitly set URLs and WebAuthn values instead of deriving them', () => {
    const config = loadConfig({
      cwd,
      env: {
        AERIE_BASE_URL: 'https://id.example.com',
        AERIE_LOGIN_URL: 'https://login.example.com',
        AERIE_WEBAUTHN_RP_ID: 'example.com',
        AERIE_WEBAUTHN_ORIGINS: 'https://id.example.com,https://app.example.com',
      },
    });
    expect(config.loginUrl).toBe('https://login.example.com');
    expect(config.dashboardUrl).toBe('https://id.example.com');
    expect(config.webauthn).toMatchObject({ rpId: 'example.com', origins: ['https://id.example.com', 'https://app.example.com'] });
  });
});

describe('loadConfig: environment', () => {
  it.each([
    ['PORT', '8080', (c) => c.port, 8080],
    ['AERIE_PORT', '8081', (c) => c.port, 8081],
    ['AERIE_HOST', '127.0.0.1', (c) => c.host, '127.0.0.1'],
    ['AERIE_PLUGINS', 'accounts,orgs', (c) => c.plugins.enabled, ['accounts', 'orgs']],
    ['AERIE_PLUGINS', ' accounts , orgs ,', (c) => c.plugins.enabled, ['accounts', 'orgs']],
    ['AERIE_PLATFORM_ADMINS', 'Root@Example.COM, ann@example.com', (c) => c.platformAdmins, ['root@example.com', 'ann@example.com']],
    ['AERIE_DATA_DIR', 'var/aerie', (c) => c.dataDir, '<cwd>/var/aerie'],
    ['DATABASE_URL', 'postgres://u@db:5432/aerie', (c) => c.databaseUrl, 'postgres://u@db:5432/aerie'],
    ['AERIE_DEFAULT_PLAN', 'Business', (c) => c.billing.defaultPlan, 'Business'],
    ['AERIE_SESSION_IDLE_TTL', '900', (c) => c.session.idleTtlSeconds, 900],
    ['AERIE_MAIL_FROM', 'Acme <id@acme.test>', (c) => c.mail.from, 'Acme <id@acme.test>'],
    ['AERIE_LOG_LEVEL', 'debug', (c) => c.log.level, 'debug'],
    ['AERIE_SESSION_ABSOLUTE_TTL', '7200', (c) => c.session.absoluteTtlSeconds, 7200],
    ['AERIE_ROOST_KEY', 'k'.repeat(43), (c) => c.roost.rearmKey, 'k'.repeat(43)],
  ] as Array<[string, string, (c: Record<string, any>) => unknown, unknown]>)('maps %s=%j', (name, value, read, expected) => {
    const want = JSON.parse(JSON.stringify(expected).replaceAll('<cwd>', cwd));
    expect(read(allKeys({ cwd, env: { [name]: value } }))).toEqual(want);
  });

  it('maps AERIE_PLUGIN_PATHS to absolute paths (relative ones from cwd), where plugins are then found', () => {
    const fixtures = join(REPO_ROOT, 'test/fixtures/partner-plugin');
    mkdirSync(join(cwd, 'partners', 'local-one'), { recursive: true });
    writeFileSync(join(cwd, 'partners', 'local-one', 'plugin.json'), JSON.stringify({ id: 'local-one', version: '1.0.0', kernelApi: '^1.0.0', description: 'x', entry: './index.ts' }));
    const loaded = loadConfiguration({ cwd, env: { AERIE_PLUGIN_PATHS: `./partners,${fixtures}` } });
    expect(loaded.config.plugins.paths).toEqual([join(cwd, 'partners'), fixtures]);
    expect(loaded.plugins.filter((p) => !p.builtIn).map((p) => p.manifest.id)).toEqual(['local-one', 'hello-partner']);
  });

  it('ignores empty variables', () => {
    expect(loadConfig({ cwd, env: { AERIE_PORT: '', AERIE_PLUGINS: '' } })).toMatchObject({ port: 3000, plugins: { paths: [] } });
  });
});

describe('loadConfig: aerie.config.json', () => {
  it('reads aerie.config.json from cwd', () => {
    writeConfigFile({ port: 5000, billing: { defaultPlan: 'Pro' }, plugins: { enabled: ['accounts'] }, platformAdmins: ['Boss@Example.com'] });
    expect(allKeys({ cwd, env: {} })).toMatchObject({
      port: 5000, baseUrl: 'http://localhost:5000', billing: { defaultPlan: 'Pro' }, plugins: { enabled: ['accounts'] }, platformAdmins: ['boss@example.com'],
    });
  });

  it('lets the environment win over the file, and overrides win over both', () => {
    writeConfigFile({ port: 5000, billing: { defaultPlan: 'Pro' }, host: '10.0.0.1' });
    const config = allKeys({ cwd, env: { AERIE_PORT: '6000', AERIE_DEFAULT_PLAN: 'Enterprise' } });
    expect(config).toMatchObject({ port: 6000, host: '10.0.0.1', billing: { defaultPlan: 'Enterprise' } });
    expect(loadConfig({ cwd, env: { AERIE_PORT: '6000' }, overrides: { port: 7000 } }).port).toBe(7000);
  });

  it('reads the file named by AERIE_CONFIG instead', () => {
    writeConfigFile({ port: 5000 });
    writeConfigFile({ port: 5001 }, 'other.json');
    expect(loadConfig({ cwd, env: { AERIE_CONFIG: 'other.json' } }).port).toBe(5001);
  });
});

describe('loadConfig: invalid values stop boot with one line naming the key', () => {
  const key48 = Buffer.alloc(48, 7).toString('base64');
  it.each([
    ['AERIE_PORT=abc', () => loadConfig({ cwd, env: { AERIE_PORT: 'abc' } }), ['port', 'AERIE_PORT']],
    ['PORT=70000', () => loadConfig({ cwd, env: { PORT: '70000' } }), ['port', 'PORT']],
    ['AERIE_BASE_URL=ftp://x', () => loadConfig({ cwd, env: { AERIE_BASE_URL: 'ftp://x' } }), ['baseUrl', 'AERIE_BASE_URL']],
    ['AERIE_DEFAULT_PLAN=Gold', () => loadConfig({ cwd, env: { AERIE_DEFAULT_PLAN: 'Gold' } }), ['billing.defaultPlan', 'AERIE_DEFAULT_PLAN']],
    ['AERIE_PLATFORM_ADMINS=not-an-email', () => loadConfig({ cwd, env: { AERIE_PLATFORM_ADMINS: 'not-an-email' } }), ['platformAdmins', 'AERIE_PLATFORM_ADMINS']],
    ['AERIE_SESSION_IDLE_TTL=10', () => loadConfig({ cwd, env: { AERIE_SESSION_IDLE_TTL: '10' } }), ['session.idleTtlSeconds', 'AERIE_SESSION_IDLE_TTL']],
    ['AERIE_AUDIT_INGEST_THREADS=-1', () => loadConfig({ cwd, env: { AERIE_AUDIT_INGEST_THREADS: '-1' } }), ['audit.ingestThreads', 'AERIE_AUDIT_INGEST_THREADS']],
    ['AERIE_AUDIT_INGEST_THREADS=65', () => loadConfig({ cwd, env: { AERIE_AUDIT_INGEST_THREADS: '65' } }), ['audit.ingestThreads', 'AERIE_AUDIT_INGEST_THREADS']],
    ['AERIE_WORKERS_MAX_THREADS=0', () => loadConfig({ cwd, env: { AERIE_WORKERS_MAX_THREADS: '0' } }), ['workers.maxThreads', 'AERIE_WORKERS_MAX_THREADS']],
    ['unknown key in the file', () => (writeConfigFile({ port: 3000, colour: 'blue' }), loadConfig({ cwd, env: {} })), ['colour']],
    ['unknown nested key in the file', () => (writeConfigFile({ billing: { currency: 'EUR' } }), loadConfig({ cwd, env: {} })), ['billing.currency']],
    ['wrong type in the file', () => (writeConfigFile({ port: '3000' }), loadConfig({ cwd, env: {} })), ['port']],
    ['invalid JSON file', () => (writeConfigFile('{\n  "port": 3000,\n  "host": \n}\n'), loadConfig({ cwd, env: {} })), ['aerie.config.json', 'JSON']],
    ['AERIE_CONFIG naming a missing file', () => loadConfig({ cwd, env: { AERIE_CONFIG: 'nope.json' } }), ['AERIE_CONFIG', 'nope.json']],
    ['AERIE_MASTER_KEY too short for the pattern', () => loadConfig({ cwd, env: { AERIE_MASTER_KEY: 'c2hvcnQ=' } }), ['masterKey', 'AERIE_MASTER_KEY']],
    ['AERIE_MASTER_KEY of 48 bytes', () => resolveMasterKey(loadConfig({ cwd, env: { AERIE_MASTER_KEY: key48 } }).masterKey, null), ['masterKey', 'AERIE_MASTER_KEY', '32 bytes']],
  ] as Array<[string, () => unknown, string[]]>)('%s', (_label, run, named) => {
    const err = configErrorOf(run);
    expect(err.message).not.toMatch(/[\r\n]/);
    for (const word of named) expect(err.message).toContain(word);
  });

  it('does not name an environment variable when the bad value came from the file', () => {
    writeConfigFile({ billing: { defaultPlan: 'Gold' } });
    const err = configErrorOf(() => loadConfig({ cwd, env: {} }));
    expect(err.message).toContain('billing.defaultPlan');
    expect(err.message).not.toContain('AERIE_DEFAULT_PLAN');
  });

  it('accepts a 32-byte master key in base64 and base64url', () => {
    const key = Buffer.alloc(32);
    for (let i = 0; i < 32; i++) key[i] = 250 - i; // bytes that give + and / in base64
    for (const text of [key.toString('base64'), key.toString('base64url')]) {
      const config = loadConfig({ cwd, env: { AERIE_MASTER_KEY: text } });
      expect(resolveMasterKey(config.masterKey, null).equals(key)).toBe(true);
    }
  });
});

describe('plugin configuration keys', () => {
  it('hands each plugin only the keys its config schema owns, validated with defaults', () => {
    const loaded = loadConfiguration({ cwd, env: { AERIE_DEFAULT_PLAN: 'Pro' } });
    expect(loaded.pluginConfig('orgs')).toEqual({ billing: { defaultPlan: 'Pro' } });
    expect(loaded.pluginConfig('accounts')).toEqual({ session: { idleTtlSeconds: 604800, absoluteTtlSeconds: 2592000 } });
    expect(loaded.pluginConfig('keys')).toEqual({});
    expect(loaded.config).not.toHaveProperty('billing');
    expect(loaded.config).not.toHaveProperty('session');
  });

  it("accepts a disabled plugin's keys and still validates them", () => {
    writeConfigFile({ plugins: { enabled: ['accounts'] }, billing: { defaultPlan: 'Pro' } });
    expect(allKeys({ cwd, env: {} }).billing).toEqual({ defaultPlan: 'Pro' });
    expect(configErrorOf(() => loadConfig({ cwd, env: { AERIE_PLUGINS: 'accounts', AERIE_DEFAULT_PLAN: 'Gold' } })).message).toContain('billing.defaultPlan');
  });

  it('refuses a plugin config schema that claims a key the kernel or another plugin owns', () => {
    const partner = join(cwd, 'partners');
    const write = (id: string, properties: object) => {
      mkdirSync(join(partner, id), { recursive: true });
      writeFileSync(join(partner, id, 'plugin.json'), JSON.stringify({ id, version: '1.0.0', kernelApi: '^1.0.0', description: id, entry: './index.ts', config: './config.schema.json' }));
      writeFileSync(join(partner, id, 'config.schema.json'), JSON.stringify({ type: 'object', properties }));
    };
    write('greedy', { port: { type: 'integer' } });
    expect(() => loadConfig({ cwd, env: { AERIE_PLUGIN_PATHS: join(partner, 'greedy') } })).toThrow(new BootError('plugin greedy: config key port is already the kernel\'s'));
    write('copycat', { billing: { type: 'object' } });
    expect(() => loadConfig({ cwd, env: { AERIE_PLUGIN_PATHS: join(partner, 'copycat') } })).toThrow(new BootError('plugin copycat: config key billing is already plugin orgs\'s'));
  });
});

describe('README configuration table', () => {
  it("names every environment variable of the kernel (core/config/env-map.ts) and of the plugins' config schemas", () => {
    const text = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const bindings = envBindings(loadConfiguration({ cwd, env: {} }));
    expect(bindings.map((b) => b.env)).toEqual(expect.arrayContaining(['AERIE_PORT', 'AERIE_DEFAULT_PLAN', 'AERIE_SESSION_IDLE_TTL', 'AERIE_SESSION_ABSOLUTE_TTL', 'AERIE_ROOST_KEY']));
    const missing = [...new Set(bindings.map((b) => b.env))].filter((name) => !new RegExp(`(?<![A-Z_])${name}(?![A-Z_])`).test(text));
    expect(missing).toEqual([]);
  });
});

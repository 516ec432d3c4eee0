import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { TestAerie } from '../../helpers/harness.ts';
import { Command } from 'commander';
import { BootError } from '../../../core/plugins/boot-error.ts';
import { ConfigError, loadConfig } from '../../../core/config/load-config.ts';
import helloPartner from '../../fixtures/partner-plugin/hello-partner/index.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));

describe('a partner plugin loaded from AERIE_PLUGIN_PATHS', () => {
  let aerie: TestAerie;
  let ann: string;
  let bob: string;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'hello-partner'], env: { AERIE_PLUGIN_PATHS: fixture('partner-plugin') } });
    ann = await aerie.signIn('ann@example.com');
    bob = await aerie.signIn('bob@example.com');
  });
  afterAll(() => aerie?.close());

  it('serves its routes end to end, per signed-in account', async () => {
    const created = await aerie.request('POST', '/api/hello-partner/greetings', { token: ann, body: { message: '  Hello from a partner  ' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), message: 'Hello from a partner', createdAt: expect.any(String) });
    await aerie.request('POST', '/api/hello-partner/greetings', { token: ann, body: { message: 'Second' } });

    const list = await aerie.request('GET', '/api/hello-partner/greetings', { token: ann });
    expect(list.status).toBe(200);
    expect(list.body.greetings.map((g: { message: string }) => g.message)).toEqual(['Hello from a partner', 'Second']);
    expect(list.body.greetings[0].id).toBe(created.body.id);

    const bobs = await aerie.request('GET', '/api/hello-partner/greetings', { token: bob });
    expect(bobs.body).toEqual({ greetings: [] });

    const rows = await aerie.sql(
      `select a.email, g.message from hello_partner.greetings g join accounts.accounts a on a.id = g.account_id order by g.created_at`,
    );
    expect(rows).toEqual([{ email: 'ann@example.com', message: 'Hello from a partner' }, { email: 'ann@example.com', message: 'Second' }]);
  });

  it('applies the kernel auth scheme and its body schema, writing nothing on refusal', async () => {
    const count = async () => (await aerie.sql('select count(*)::int as n from hello_partner.greetings'))[0].n as number;
    const before = await count();
    const anonymous = await aerie.request('GET', '/api/hello-partner/greetings');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('UNAUTHORIZED');
    expect((await aerie.request('POST', '/api/hello-partner/greetings', { body: { message: 'hi' } })).status).toBe(401);
    for (const body of [{}, { message: '   ' }, { message: 42 }, { message: 'hi', mood: 'sunny' }, { message: 'x'.repeat(281) }]) {
      const res = await aerie.request('POST', '/api/hello-partner/greetings', { token: ann, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_FAILED');
      expect(res.body.field).toMatch(/^(message|mood)$/);
    }
    expect(await count()).toBe(before);
  });

  it('answers its own registered error code, and only its owner may delete a greeting', async () => {
    const created = await aerie.request('POST', '/api/hello-partner/greetings', { token: ann, body: { message: 'Short-lived' } });
    const path = `/api/hello-partner/greetings/${created.body.id}`;
    const byBob = await aerie.request('DELETE', path, { token: bob });
    expect(byBob.status).toBe(404);
    expect(byBob.body).toEqual({ error: 'GREETING_NOT_FOUND', message: 'No greeting with this id.' });
    expect((await aerie.request('DELETE', path, { token: ann })).status).toBe(204);
    expect((await aerie.request('DELETE', path, { token: ann })).body.error).toBe('GREETING_NOT_FOUND');
    expect(await aerie.sql('select id from hello_partner.greetings where id = ?', [created.body.id])).toEqual([]);
    expect((await aerie.request('DELETE', '/api/hello-partner/greetings/not-a-uuid', { token: ann })).body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'greetingId' });
  });

  it('keeps its table and its own migration table in schema hello_partner', async () => {
    const tables = await aerie.sql(
      `select table_schema, table_name from information_schema.tables
        where table_name in ('greetings', 'knex_migrations') and table_schema in ('public', 'hello_partner', 'accounts')
        order by table_schema, table_name`,
    );
    expect(tables).toEqual([
      { table_schema: 'accounts', table_name: 'knex_migrations' },
      { table_schema: 'hello_partner', table_name: 'greetings' },
      { table_schema: 'hello_partner', table_name: 'knex_migrations' },
    ]);
    expect(await aerie.sql('select name from hello_partner.knex_migrations')).toEqual([{ name: '001_greetings' }]);
    expect(await aerie.sql(`select name from accounts.knex_migrations where name like '%greetings%'`)).toEqual([]);
  });

  it('publishes its routes and body schema in GET /api/openapi.json', async () => {
    const res = await aerie.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    const path = res.body.paths['/api/hello-partner/greetings'];
    expect(Object.keys(path).sort()).toEqual(['get', 'post']);
    expect(path.get.security).toEqual([{ session: [] }]);
    const ref = path.post.requestBody.content['application/json'].schema.$ref as string;
    expect(ref).toBe('#/components/schemas/hello-partner.greeting.body');
    expect(res.body.components.schemas['hello-partner.greeting.body']).toMatchObject({ type: 'object', required: ['message'] });
    expect(path.get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/hello-partner.greetings.response' });
  });
});

describe('a partner plugin: its configuration keys and its command', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'hello-partner'], env: { AERIE_PLUGIN_PATHS: fixture('partner-plugin'), HELLO_PARTNER_LIST_LIMIT: '2' } });
  });
  afterAll(() => aerie?.close());

  it('receives its own validated configuration (HELLO_PARTNER_LIST_LIMIT=2 caps the list)', async () => {
    const ann = await aerie.signIn('ann@example.com');
    for (const message of ['one', 'two', 'three']) expect((await aerie.request('POST', '/api/hello-partner/greetings', { token: ann, body: { message } })).status).toBe(201);
    const list = await aerie.request('GET', '/api/hello-partner/greetings', { token: ann });
    expect(list.body.greetings.map((g: { message: string }) => g.message)).toEqual(['one', 'two']);
  });

  it('stops boot with one line naming its key and variable when the value is invalid', () => {
    let err: unknown;
    try {
      loadConfig({ env: { AERIE_PLUGIN_PATHS: fixture('partner-plugin'), HELLO_PARTNER_LIST_LIMIT: '0' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe('invalid config: helloPartner.listLimit must be >= 1 (from HELLO_PARTNER_LIST_LIMIT)');
    // Without the plugin, nobody reads the variable.
    expect(() => loadConfig({ env: { HELLO_PARTNER_LIST_LIMIT: '0' } })).not.toThrow();
  });

  it('adds its command to the aerie program through its commands hook', async () => {
    let out = '';
    const program = new Command('aerie').exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
    helloPartner.commands!(program, {
      config: aerie.kernel.config, pluginConfig: () => ({}) as never, crypto: () => { throw new Error('not used'); },
      boot: async () => ({ resolve: (ref) => aerie.kernel.container.resolve(ref.id), close: async () => {} }),
    });
    await program.parseAsync(['node', 'aerie', 'hello-partner', 'count']);
    const [{ n }] = await aerie.sql('select count(*)::int as n from hello_partner.greetings');
    expect(n).toBe(3);
    expect(out).toBe('3 greetings\n');
  });
});

describe('a partner plugin this kernel cannot run', () => {
  it('stops boot with one line naming the plugin and its kernel API range', async () => {
    const boot = TestAerie.start({ env: { AERIE_PLUGIN_PATHS: fixture('partner-plugin-bad') } });
    await expect(boot).rejects.toBeInstanceOf(BootError);
    const message = await boot.catch((err: Error) => err.message);
    expect(message).not.toMatch(/\n/);
    expect(message).toContain('too-new');
    expect(message).toContain('^9');
    expect(message).toMatch(/kernel API/);
  });

  it('stops boot naming a plugin path that does not exist', async () => {
    const missing = fixture('no-such-partner-folder');
    await expect(TestAerie.start({ env: { AERIE_PLUGIN_PATHS: missing } })).rejects.toThrow(new BootError(`plugin path ${missing} does not exist`));
  });
});

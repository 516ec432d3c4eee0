import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { TestAerie } from '../../helpers/harness.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { chainHash, payloadHash, registerAuditFileCommands } from '../../../core/audit/chain/index.ts';
import auditPlugin from '../../../plugins/audit/index.ts';

describe('audit: signed checkpoints, verify one record, CLI verify/export/verify-file', () => {
  let aerie: TestAerie;
  let owner: string;
  let admin: string;
  let member: string;
  let outsider: string;
  let orgId: string;
  const tmp = mkdtempSync(join(tmpdir(), 'aerie-audit-cli-'));

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'audit'] });
    owner = await aerie.signIn('owner@example.com');
    admin = await aerie.signIn('admin@example.com');
    member = await aerie.signIn('member@example.com');
    outsider = await aerie.signIn('outsider@example.com');
    expect((await aerie.request('POST', '/api/org/create', { token: owner, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    for (const [email, role] of [['admin@example.com', 'Admin'], ['member@example.com', 'Member']]) {
      await aerie.sql(
        `insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
         select gen_random_uuid(), o.id, a.id, ?, 'active', now(), now() from orgs.organizations o, accounts.accounts a where o.slug = 'acme' and a.email = ?`,
        [role, email],
      );
    }
    orgId = (await aerie.sql(`select id from orgs.organizations where slug = 'acme'`))[0].id;
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, Array.from({ length: 12 }, (_, i) => ({ orgId, eventType: 'test.event', businessData: { i } }))));
    await aerie.kernel.auditSealer.drain();
    await aerie.kernel.auditCheckpointer.flush();
  });
  afterAll(async () => {
    await aerie?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const chain = () => readChain(aerie.kernel.db.knex, orgId);
  const cli = async (...args: string[]) => {
    let out = '';
    const program = new Command('aerie').exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
    // As the kernel CLI builds it: its own `audit verify-file`, then the audit plugin's commands.
    registerAuditFileCommands(program);
    auditPlugin.commands!(program, {
      config: aerie.kernel.config, pluginConfig: () => ({}) as never, crypto: () => aerie.kernel.container.resolve(coreRefs.crypto.id),
      boot: async () => ({ resolve: (ref) => aerie.kernel.container.resolve(ref.id), close: async () => {} }),
    });
    let exitCode = 0;
    try {
      await program.parseAsync(['node', 'aerie', ...args]);
    } catch (err) {
      exitCode = (err as { exitCode?: number }).exitCode ?? 99;
    }
    return { out, exitCode };
  };

  it('publishes the platform audit JWKS and signs the head of each sealed batch', async () => {
    const jwks = await aerie.request('GET', '/api/public/audit/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.body.keys[0].d).toBeUndefined();
    const head = (await chain()).at(-1)!;
    const cps = await aerie.sql(`select seq::int as seq, chain_hash, kid from core.audit_checkpoints where org_id = ? order by seq`, [orgId]);
    expect(cps.at(-1)).toMatchObject({ seq: head.seq, chain_hash: head.chainHash, kid: jwks.body.keys[0].kid });
    const key = await aerie.sql(`select private_jwk_enc from core.platform_keys`);
    expect(key[0].private_jwk_enc).toMatch(/^aev1\./);
  });

  it('verifies an intact record for Owner and Admin; 404 for a member, an outsider and unknown ids', async () => {
    const record = (await chain())[2];
    for (const token of [owner, admin]) {
      const res = await aerie.request('GET', `/api/v1/admin/audit/verify/${record.id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ logId: record.id, seq: record.seq, ok: true, payloadHash: { ok: true }, chainHash: { ok: true }, link: { ok: true }, checkpoint: { status: 'matched' } });
    }
    for (const token of [member, outsider]) expect((await aerie.request('GET', `/api/v1/admin/audit/verify/${record.id}`, { token })).status).toBe(404);
    // Not a record, or not a UUID at all (36 dashes once reached the uuid column): 404, never 500.
    for (const id of ['00000000-0000-4000-8000-000000000000', '-'.repeat(36), 'f'.repeat(36)]) {
      expect((await aerie.request('GET', `/api/v1/admin/audit/verify/${id}`, { token: owner })).status).toBe(404);
    }
    expect((await cli('audit', 'verify', '--org', 'acme')).exitCode).toBe(0);
  });

  it('names a record tampered in SQL, on the route and in the CLI', async () => {
    const target = (await chain())[5];
    await aerie.sql(`update core.audit_events set business_data = '{"i": 999}' where id = ?`, [target.id]);
    try {
      const res = await aerie.request('GET', `/api/v1/admin/audit/verify/${target.id}`, { token: owner });
      expect(res.body).toMatchObject({ ok: false, payloadHash: { ok: false, stored: target.payloadHash }, link: { ok: true } });
      const { out, exitCode } = await cli('audit', 'verify', '--org', 'acme');
      expect(exitCode).toBe(1);
      expect(out).toContain(`first broken record: seq ${target.seq} id ${target.id}: payload_hash_mismatch`);
    } finally {
      await aerie.sql(`update core.audit_events set business_data = ? where id = ?`, [JSON.stringify(target.businessData), target.id]);
    }
    expect((await cli('audit', 'verify', '--org', 'acme')).exitCode).toBe(0);
  });

  it('catches a rewrite with every later hash recomputed through the signed checkpoint', async () => {
    const original = await chain();
    const at = 4;
    let prev = original[at - 1].chainHash;
    for (const r of original.slice(at)) {
      const changed = { ...r, prevHash: prev, businessData: r.seq === original[at].seq ? { i: 4242 } : r.businessData };
      changed.payloadHash = payloadHash(changed);
      changed.chainHash = chainHash(prev, changed.payloadHash);
      prev = changed.chainHash;
      await aerie.sql(`update core.audit_events set business_data = ?, payload_hash = ?, prev_hash = ?, chain_hash = ? where id = ?`,
        [JSON.stringify(changed.businessData), changed.payloadHash, changed.prevHash, changed.chainHash, r.id]);
    }
    try {
      const res = await aerie.request('GET', `/api/v1/admin/audit/verify/${original[at].id}`, { token: owner });
      expect(res.body).toMatchObject({ ok: false, payloadHash: { ok: true }, chainHash: { ok: true }, link: { ok: true }, checkpoint: { status: 'mismatch' } });
      const { out, exitCode } = await cli('audit', 'verify', '--org', 'acme');
      expect(exitCode).toBe(1);
      expect(out).toContain('checkpoint_mismatch');
    } finally {
      for (const r of original.slice(at)) {
        await aerie.sql(`update core.audit_events set business_data = ?, payload_hash = ?, prev_hash = ?, chain_hash = ? where id = ?`,
          [JSON.stringify(r.businessData), r.payloadHash, r.prevHash, r.chainHash, r.id]);
      }
    }
  });

  it('exports a day that verify-file accepts, and rejects the same file with one flipped byte', async () => {
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    // More events after the last checkpoint: the export signs a day-end checkpoint only through the next one.
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, [{ orgId, eventType: 'test.late', businessData: { late: true } }]));
    await aerie.kernel.auditSealer.drain();
    const day = (await chain()).at(-1)!.sealedAt.slice(0, 10);
    const exported = await cli('audit', 'export', '--org', 'acme', '--day', day);
    expect(exported.exitCode).toBe(0);
    const file = join(tmp, 'day.jsonl');
    const jwksFile = join(tmp, 'jwks.json');
    writeFileSync(file, exported.out);
    writeFileSync(jwksFile, JSON.stringify((await aerie.request('GET', '/api/public/audit/.well-known/jwks.json')).body));
    expect(exported.out.split('\n')[0]).toBe('{"format":"aerie-audit-export","type":"header","version":1}');
    const ok = await cli('audit', 'verify-file', file, '--jwks', jwksFile);
    expect(ok.out).toMatch(/^OK /);
    expect(ok.exitCode).toBe(0);
    // Also through the HTTP JWKS URL.
    expect((await cli('audit', 'verify-file', file, '--jwks', `${aerie.url}/api/public/audit/.well-known/jwks.json`)).exitCode).toBe(0);

    const text = readFileSync(file, 'utf8');
    const i = text.indexOf('"i":7');
    const flipped = `${text.slice(0, i + 4)}8${text.slice(i + 5)}`;
    writeFileSync(file, flipped);
    const bad = await cli('audit', 'verify-file', file, '--jwks', jwksFile);
    expect(bad.exitCode).toBe(1);
    expect(bad.out).toContain('payload_hash_mismatch');
  });
});

import type { Command } from 'commander';
import type { Knex } from 'knex';
import type { JSONWebKeySet } from 'jose';
import { registerAuditFileCommands, loadJwks } from '../audit/chain/index.ts';
import type { AuditCheckpointer } from '../audit/checkpointer.ts';
import { exportDay } from '../audit/export-day.ts';
import { auditJwks } from '../audit/platform-audit-key.ts';
import { verifyStoredChain } from '../audit/verify-stored.ts';

/** What the commands need from a booted Aerie (tests pass their own). */
export interface AuditCliContext {
  knex: Knex;
  checkpointer: AuditCheckpointer;
  close(): Promise<void>;
}

/** Boots Aerie from the environment (as `aerie migrate` does). */
async function bootFromEnv(): Promise<AuditCliContext> {
  const { Kernel } = await import('../kernel.ts');
  const kernel = await Kernel.boot();
  return { knex: kernel.db.knex, checkpointer: kernel.auditCheckpointer, close: () => kernel.close() };
}

async function orgIdOf(knex: Knex, slug: string): Promise<string> {
  const org = await knex('orgs.organizations').where({ slug }).first('id');
  if (!org) throw new Error(`no organization with slug ${slug}`);
  return org.id as string;
}

/**
 * Adds `aerie audit verify --org <slug> [--from <seq>] [--jwks <url|file>] [--json]` (walks the
 * stored chain and its checkpoints; prints the first broken record, exit 1), `aerie audit export
 * --org <slug> --day YYYY-MM-DD` (JSONL day file with its checkpoints to stdout) and
 * `aerie audit verify-file` (offline, `registerAuditFileCommands`).
 * @param program - the root `aerie` command.
 * @param open - how to reach the database (default: boot Aerie from the environment).
 * @see spec 01 "Audit"; docs/audit.md "CLI"
 */
export function registerAuditCommands(program: Command, open: () => Promise<AuditCliContext> = bootFromEnv): Command {
  const audit = program.commands.find((c) => c.name() === 'audit') ?? program.command('audit').description('Audit chain tools');
  const writer = (cmd: Command) => {
    const out = cmd.configureOutput();
    return (text: string) => (out.writeOut ? out.writeOut(text) : process.stdout.write(text));
  };
  audit
    .command('verify')
    .description("Walk an organization's sealed chain and signed checkpoints; print the first broken record")
    .requiredOption('--org <slug>', 'organization slug')
    .option('--from <seq>', 'first seq to check', '1')
    .option('--jwks <url|file>', 'audit JWKS to trust (default: the keys in this database)')
    .option('--json', 'print the report as JSON')
    .action(async function (this: Command, opts: { org: string; from: string; jwks?: string; json?: boolean }) {
      const write = writer(this);
      const from = Number(opts.from);
      if (!Number.isSafeInteger(from) || from < 1) return this.error('audit verify: --from must be an integer >= 1', { exitCode: 1 });
      const ctx = await open();
      let failed = false;
      try {
        const orgId = await orgIdOf(ctx.knex, opts.org);
        const jwks: JSONWebKeySet = opts.jwks ? await loadJwks(opts.jwks) : await auditJwks(ctx.knex);
        const report = await verifyStoredChain(ctx.knex, orgId, jwks, from);
        failed = !report.ok;
        if (opts.json) write(`${JSON.stringify(report, null, 2)}\n`);
        else {
          write(`${report.ok ? 'OK' : 'FAILED'} org ${opts.org} (${orgId}): ${report.checked} records from seq ${from} checked, head seq ${report.headSeq}, `
            + `${report.checkpointsMatched} checkpoints matched${report.coveredThroughSeq === null ? '' : `, covered through seq ${report.coveredThroughSeq}`}\n`);
          const b = report.firstBroken;
          if (b) {
            write(`  first broken record: seq ${b.seq}${b.id ? ` id ${b.id}` : ''}: ${b.reason}\n  ${b.detail}\n`);
            if (b.record) write(`  ${JSON.stringify(b.record)}\n`);
          }
        }
      } finally {
        await ctx.close();
      }
      if (failed) this.error(`audit verify: chain of ${opts.org} is broken`, { exitCode: 1, code: 'aerie.audit.verify_failed' });
    });
  audit
    .command('export')
    .description('Write one UTC day of an organization\'s chain, with its checkpoints, as JSONL to stdout')
    .requiredOption('--org <slug>', 'organization slug')
    .requiredOption('--day <YYYY-MM-DD>', 'UTC day (by sealedAt)')
    .action(async function (this: Command, opts: { org: string; day: string }) {
      const write = writer(this);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(opts.day)) return this.error('audit export: --day must be YYYY-MM-DD', { exitCode: 1 });
      const ctx = await open();
      try {
        write(await exportDay(ctx.knex, ctx.checkpointer, await orgIdOf(ctx.knex, opts.org), opts.day));
      } finally {
        await ctx.close();
      }
    });
  registerAuditFileCommands(program);
  return program;
}

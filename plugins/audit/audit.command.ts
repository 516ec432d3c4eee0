import type { Command } from 'commander';
import { loadJwks } from '../../core/index.ts';
import type { OrganizationsService } from '../orgs/api.ts';
import type { AuditQueryService } from './api.ts';

/** What the commands need from a booted Aerie (the `commands` hook boots one; tests pass their own). */
export interface AuditCliContext {
  auditQuery: AuditQueryService;
  organizations: Pick<OrganizationsService, 'findBySlug'>;
  close(): Promise<void>;
}

async function orgIdOf(ctx: AuditCliContext, slug: string): Promise<string> {
  const org = await ctx.organizations.findBySlug(slug);
  if (!org) throw new Error(`no organization with slug ${slug}`);
  return org.id;
}

/**
 * Adds `aerie audit verify --org <slug> [--from <seq>] [--jwks <url|file>] [--json]` (walks the
 * stored chain and its checkpoints; prints the first broken record, exit 1), `aerie audit export
 * --org <slug> --day YYYY-MM-DD` (JSONL day file with its checkpoints to stdout) and
 * the kernel's `aerie audit verify-file` (offline) sits beside them.
 * @param program - the root `aerie` command.
 * @param open - boots Aerie and hands over the services the commands use.
 * @see docs/audit.md; docs/audit.md "CLI"
 */
export function registerAuditCommands(program: Command, open: () => Promise<AuditCliContext>): Command {
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
        const orgId = await orgIdOf(ctx, opts.org);
        const report = await ctx.auditQuery.verifyChain(orgId, { fromSeq: from, jwks: opts.jwks ? await loadJwks(opts.jwks) : undefined });
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
        write(await ctx.auditQuery.exportDay(await orgIdOf(ctx, opts.org), opts.day));
      } finally {
        await ctx.close();
      }
    });
  return program;
}

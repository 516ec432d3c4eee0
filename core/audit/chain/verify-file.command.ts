/**
 * CLI: `aerie audit verify-file <file> --jwks <url|file>` — verify an audit export offline.
 *
 * Enforces: the JWKS is a `{keys: [...]}` object; the whole file passes `verifyExportFile`;
 * on failure the first broken record is printed and the exit code is 1.
 *
 * @see docs/audit.md
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { JSONWebKeySet } from 'jose';
import { verifyExportFile, type ExportFileReport } from './verify-export-file.ts';
import { isParquet, verifyDayFile, type DayFileReport } from './day-file.ts';

/**
 * Load a JWKS from an `http(s)://` URL (one GET, 10 s timeout) or a file path.
 *
 * @param source - URL or path.
 * @returns the key set.
 * @throws Error when it cannot be fetched/read or is not `{ keys: [...] }`.
 * @example await loadJwks('https://aerie.example/.well-known/audit-jwks.json')
 * @see docs/audit.md
 */
export async function loadJwks(source: string): Promise<JSONWebKeySet> {
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    const res = await fetch(source, { signal: AbortSignal.timeout(10_000), headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`JWKS ${source}: HTTP ${res.status}`);
    text = await res.text();
  } else {
    text = await readFile(source, 'utf8');
  }
  let jwks: unknown;
  try {
    jwks = JSON.parse(text);
  } catch {
    throw new Error(`JWKS ${source}: not JSON`);
  }
  if (jwks === null || typeof jwks !== 'object' || !Array.isArray((jwks as JSONWebKeySet).keys)) {
    throw new Error(`JWKS ${source}: expected {"keys": [...]}`);
  }
  return jwks as JSONWebKeySet;
}

function describe(file: string, report: ExportFileReport): string {
  const lines: string[] = [];
  const orgs = report.orgs.length;
  lines.push(`${report.ok ? 'OK' : 'FAILED'} ${file}: ${report.records} records, ${report.checkpoints} checkpoints, ${orgs} organization${orgs === 1 ? '' : 's'} verified`);
  for (const org of report.orgs) {
    const covered = org.coveredThroughSeq === null ? 'no checkpoint matched' : `signed checkpoints cover through seq ${org.coveredThroughSeq}`;
    lines.push(`  org ${org.orgId}: seq ${org.firstSeq}..${org.lastSeq}, ${covered}`);
  }
  const f = report.failure;
  if (f) {
    const where = [f.line !== undefined ? `line ${f.line}` : '', f.seq !== undefined ? `seq ${f.seq}` : '', f.id ? `id ${f.id}` : '']
      .filter(Boolean)
      .join(', ');
    lines.push(`  first failure: ${f.reason}${where ? ` at ${where}` : ''}`);
    lines.push(`  ${f.detail}`);
    if (f.record) lines.push(`  first broken record: ${JSON.stringify(f.record)}`);
  }
  return `${lines.join('\n')}\n`;
}

function describeDayFile(file: string, report: DayFileReport): string {
  const lines: string[] = [];
  const m = report.meta;
  lines.push(`${report.ok ? 'OK' : 'FAILED'} ${file}: day file, ${report.records} records, ${report.checkpoints} checkpoints`);
  if (m) {
    const covered = report.coveredThroughSeq === null ? 'no checkpoint matched' : `signed checkpoints cover through seq ${report.coveredThroughSeq}`;
    lines.push(`  org ${m.orgId}, day ${m.day}: seq ${m.firstSeq}..${m.lastSeq}, head ${m.headHash}, ${covered}`);
  }
  const f = report.failure;
  if (f) {
    const where = [f.seq !== undefined ? `seq ${f.seq}` : '', f.id ? `id ${f.id}` : ''].filter(Boolean).join(', ');
    lines.push(`  first failure: ${f.reason}${where ? ` at ${where}` : ''}`);
    lines.push(`  ${f.detail}`);
    if (f.record) lines.push(`  first broken record: ${JSON.stringify(f.record)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Add `audit verify-file <file> --jwks <url|file> [--allow-uncovered-tail] [--json]` to a program
 * (reusing its `audit` command when one exists).
 *
 * The file is a JSONL export, or a Parquet day file (by the `.parquet` extension or the `PAR1`
 * magic bytes), verified with `verifyDayFile` (`./day-file.ts`).
 *
 * Output goes through the program's `configureOutput()` writers. On failure the report is printed
 * and `command.error(…, { exitCode: 1, code: 'aerie.audit.verify_failed' })` ends the run
 * (a CommanderError under `exitOverride()`).
 *
 * @param program - the root `aerie` command.
 * @returns the `verify-file` command.
 * @example registerAuditFileCommands(program); await program.parseAsync(process.argv);
 * @see docs/audit.md
 */
export function registerAuditFileCommands(program: Command): Command {
  const audit = program.commands.find((c) => c.name() === 'audit') ?? program.command('audit').description('Audit chain tools');
  return audit
    .command('verify-file')
    .description('Verify an audit export (JSONL) or day file (Parquet) offline: hashes, links, gap-free seq and signed checkpoints')
    .argument('<file>', 'export file (JSONL) or day file (.parquet)')
    .requiredOption('--jwks <url|file>', 'platform audit JWKS, as an http(s) URL or a file path')
    .option('--allow-uncovered-tail', 'do not fail when the last records are after the last checkpoint')
    .option('--json', 'print the report as JSON')
    .action(async function (this: Command, file: string, opts: { jwks: string; allowUncoveredTail?: boolean; json?: boolean }) {
      const out = this.configureOutput();
      const write = (text: string) => (out.writeOut ? out.writeOut(text) : process.stdout.write(text));
      let jwks: JSONWebKeySet;
      let bytes: Buffer;
      try {
        jwks = await loadJwks(opts.jwks);
        bytes = await readFile(file);
      } catch (err) {
        return this.error(`audit verify-file: ${(err as Error).message}`, { exitCode: 1, code: 'aerie.audit.verify_input' });
      }
      let report: ExportFileReport | DayFileReport;
      if (file.toLowerCase().endsWith('.parquet') || isParquet(bytes)) {
        const day = await verifyDayFile(bytes, jwks, { allowUncoveredTail: opts.allowUncoveredTail });
        write(opts.json ? `${JSON.stringify(day, null, 2)}\n` : describeDayFile(file, day));
        report = day;
      } else {
        const jsonl = await verifyExportFile(bytes.toString('utf8'), jwks, { requireCheckpointCoverage: !opts.allowUncoveredTail });
        write(opts.json ? `${JSON.stringify(jsonl, null, 2)}\n` : describe(file, jsonl));
        report = jsonl;
      }
      if (!report.ok) {
        this.error(`audit verify-file: ${file} failed verification (${report.failure?.reason})`, { exitCode: 1, code: 'aerie.audit.verify_failed' });
      }
    });
}

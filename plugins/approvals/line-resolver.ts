import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Database } from '../../core/index.ts';
import { rbacRefs, type AssignmentsService } from '../rbac/api.ts';
import { teamsRefs, type ReportingLines } from '../teams/api.ts';
import { peopleOf, type DocType, type PositionRow } from './records.ts';

/** One resolved step: who stamps (or, on reports, receives) under which column. */
export interface ResolvedStep {
  order: number; labelKo: string; labelEn: string; labelJa: string; kind: 'approver' | 'receiver'; connectedId: string; name: string;
}

/** A resolved line: its steps, the positions nobody fills, and whether the default columns were used. */
export interface ResolvedLine {
  usesDefaultLine: boolean;
  steps: ResolvedStep[];
  unresolved: Array<{ position: number; labelEn: string }>;
  approverCount: number;
}

/** The requester: a person (Type=Human) or an agent's badge. @see docs/api/approvals.md "Rule 1" */
export type RequesterKind = 'human' | 'agent';

/** Columns of the default line (a form with no positions): the drafter, the team lead, the executive. */
export const DEFAULT_COLUMNS = [
  { labelKo: '팀장', labelEn: 'Team lead', labelJa: 'チーム長', depthIndex: 0 },
  { labelKo: '임원', labelEn: 'Executive', labelJa: '役員', depthIndex: 1 },
] as const;

/** The risk floor of an agent requester on the reporting-tree (default) path. @see docs/api/approvals.md "Rule 1" */
export const AGENT_RISK_FLOOR = 2;

/**
 * Rule 1's routing outcome for a resolved line: `route` (send to the approvers), `auto` (zero
 * approvers, human requester: granted at once) or `unroutable` (an agent requester whose
 * positions path resolves to nobody, or whose tree path gives fewer than {@link AGENT_RISK_FLOOR}).
 * Reports are `sent`.
 * @see docs/api/approvals.md "Rule 1"
 */
export function routingOf(docType: DocType, line: ResolvedLine, requester: RequesterKind): 'route' | 'auto' | 'unroutable' | 'sent' {
  if (docType === 'report') return 'sent';
  if (requester === 'agent') {
    if (line.usesDefaultLine ? line.approverCount < AGENT_RISK_FLOOR : line.approverCount === 0) return 'unroutable';
    return 'route';
  }
  return line.approverCount === 0 ? 'auto' : 'route';
}

/**
 * Resolves a form's line for a requester: each position to one person (`member`: the fixed
 * member; `role`: the nearest holder of the role up the requester's reporting tree, else the
 * fallback member; `drafter`: no step), dropping inactive people and the requester, one step per
 * person (dual roles are deduplicated: the first column a person fills keeps them). A form with no
 * positions uses the default columns ({@link DEFAULT_COLUMNS}): the requester's nearest and
 * second-nearest managers. On `report` forms the steps are recipients.
 * @see docs/api/approvals.md "Resolving a line"
 */
@injectable()
export class LineResolver {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(teamsRefs.reporting.id) private readonly reporting: ReportingLines,
    @inject(rbacRefs.assignments.id) private readonly assignments: AssignmentsService,
  ) {}

  /** Resolves `positions` for `requesterConnectedId` of `orgId`, reading inside `trx` when given. */
  async resolve(orgId: string, docType: DocType, requesterConnectedId: string, positions: readonly PositionRow[], trx?: Knex.Transaction): Promise<ResolvedLine> {
    const db = trx ?? this.db.knex;
    const chain = await this.reporting.managersChain(orgId, requesterConnectedId, trx);
    const candidates: Array<{ column: { labelKo: string; labelEn: string; labelJa: string }; position: number; connectedId: string | null }> = [];
    if (positions.length === 0) {
      for (const [i, column] of DEFAULT_COLUMNS.entries()) candidates.push({ column, position: i + 2, connectedId: chain[column.depthIndex]?.connectedIdId ?? null });
    } else {
      const roleIds = [...new Set(positions.map((p) => p.resolveRoleId).filter((r): r is string => !!r))];
      const access = roleIds.length > 0 ? await this.assignments.accessOf(orgId, chain.map((m) => m.connectedIdId), trx) : new Map();
      for (const p of positions) {
        if (p.resolveType === 'drafter') continue;
        let connectedId = p.resolveType === 'role'
          ? chain.find((m) => access.get(m.connectedIdId)?.Roles.some((r: { RoleId: string }) => r.RoleId === p.resolveRoleId))?.connectedIdId ?? null
          : null;
        connectedId ??= p.resolveMemberConnectedId;
        candidates.push({ column: p, position: p.position, connectedId });
      }
    }
    const people = await peopleOf(db, orgId, candidates.map((c) => c.connectedId).filter((c): c is string => !!c));
    const steps: ResolvedStep[] = [];
    const unresolved: ResolvedLine['unresolved'] = [];
    for (const c of candidates) {
      const person = c.connectedId ? people.get(c.connectedId) : undefined;
      if (!c.connectedId || !person?.active) { unresolved.push({ position: c.position, labelEn: c.column.labelEn }); continue; }
      if (c.connectedId === requesterConnectedId || steps.some((s) => s.connectedId === c.connectedId)) continue;
      steps.push({
        order: steps.length + 1, labelKo: c.column.labelKo, labelEn: c.column.labelEn, labelJa: c.column.labelJa,
        kind: docType === 'report' ? 'receiver' : 'approver', connectedId: c.connectedId, name: person.name,
      });
    }
    return { usesDefaultLine: positions.length === 0, steps, unresolved, approverCount: docType === 'report' ? 0 : steps.length };
  }
}

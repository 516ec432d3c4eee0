import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { rbacRefs, type RolesService } from '../rbac/api.ts';
import { approvalsErrors } from './errors.ts';
import { peopleOf, type DocType, type PositionRow, type ResolveType, type WorkItemRow } from './records.ts';

/** A form as clients see it. @see docs/api/approvals.md "Forms" */
export interface FormDto {
  id: string; docType: DocType; title: string; description: string | null; linkedRoleId: string | null; linkedPermissionScope: string | null;
  createdAt: string; updatedAt: string;
}

/** What a form is created from. @see docs/api/approvals.md "Create" */
export interface FormInput {
  docType: DocType; title: string; description?: string | null; linkedRoleId?: string | null; linkedPermissionScope?: string | null;
}

/** One approval line position, as sent and shown. @see docs/api/approvals.md "Approval lines" */
export interface PositionDto {
  labelKo: string; labelEn: string; labelJa: string; resolveType: ResolveType;
  resolveRoleId: string | null; resolveMemberConnectedId: string | null;
}

/** A position as sent: the role and member may be omitted. */
export type PositionInput = Omit<PositionDto, 'resolveRoleId' | 'resolveMemberConnectedId'> & { resolveRoleId?: string | null; resolveMemberConnectedId?: string | null };

const toForm = (r: WorkItemRow): FormDto => ({
  id: r.id, docType: r.docType, title: r.title, description: r.description, linkedRoleId: r.linkedRoleId, linkedPermissionScope: r.linkedPermissionScope,
  createdAt: new Date(r.createdAt).toISOString(), updatedAt: new Date(r.updatedAt).toISOString(),
});

const toPosition = (r: PositionRow): PositionDto => ({
  labelKo: r.labelKo, labelEn: r.labelEn, labelJa: r.labelJa, resolveType: r.resolveType,
  resolveRoleId: r.resolveRoleId, resolveMemberConnectedId: r.resolveMemberConnectedId,
});

/**
 * `approvals.forms`: forms (work items) of kind `permission`, `document` or `report`, and their
 * approval lines (ordered positions, replaced as a whole). Every method filters by organization.
 * @see docs/api/approvals.md "Forms", "Approval lines"
 */
@injectable()
export class FormsService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(rbacRefs.roles.id) private readonly roles: RolesService,
  ) {}

  /**
   * Creates a form. A `permission` form names exactly one of `linkedRoleId` (a role of the
   * organization) and `linkedPermissionScope` (a scope of rbac's catalog, as roles carry it); other
   * kinds name neither. A scope form gets a role of its own carrying exactly that scope (RoleKey
   * `APPROVAL_{form id, hex}`, created in the same transaction), so that approval grants it through
   * rbac's assignment path and separation of duties applies.
   * @throws 400 `VALIDATION_FAILED` (`field: linkedRoleId` / `linkedPermissionScope`), 404 `ROLE_NOT_FOUND`
   */
  async create(orgId: string, accountId: string, input: FormInput): Promise<FormDto> {
    const linkedRoleId = input.linkedRoleId ?? null;
    const scope = input.linkedPermissionScope ?? null;
    if (input.docType === 'permission') {
      if (!linkedRoleId && !scope) throw approvalsErrors.invalid('A permission form names the role (linkedRoleId) or the scope (linkedPermissionScope) it grants.', 'linkedRoleId');
      if (linkedRoleId && scope) throw approvalsErrors.invalid('A permission form grants a role or a scope, not both.', 'linkedPermissionScope');
    } else {
      if (linkedRoleId) throw approvalsErrors.invalid('Only permission forms grant a role.', 'linkedRoleId');
      if (scope) throw approvalsErrors.invalid('Only permission forms grant a scope.', 'linkedPermissionScope');
    }
    if (scope && !this.roles.scopeCatalog().list().some((e) => e.scope === scope)) {
      throw approvalsErrors.invalid(`"${scope}" is not a scope of the catalog that roles may carry.`, 'linkedPermissionScope');
    }
    return this.db.transaction(async (trx) => {
      if (linkedRoleId && !(await this.roles.find(orgId, linkedRoleId, trx))) throw approvalsErrors.roleNotFound('linkedRoleId');
      const id = randomUUID();
      let grantRoleId = linkedRoleId;
      if (scope) {
        const role = await this.roles.create(orgId, {
          Name: `Approval grant: ${scope}`, RoleKey: `APPROVAL_${id.replaceAll('-', '').toUpperCase()}`,
          Description: `Granted by approval form "${input.title.trim()}" (linkedPermissionScope)`,
        }, trx);
        await this.roles.addPermission(orgId, role.RoleId, scope, undefined, trx);
        grantRoleId = role.RoleId;
      }
      const now = this.clock.now();
      const [row] = (await trx('approvals.work_items').insert({
        id, orgId, docType: input.docType, title: input.title.trim(), description: input.description ?? null,
        linkedRoleId, linkedPermissionScope: scope, grantRoleId, createdBy: accountId, createdAt: now, updatedAt: now,
      }).returning('*')) as WorkItemRow[];
      await this.audit.append(trx, {
        orgId, eventType: 'approval.form.created',
        businessData: { workItemId: row.id, docType: row.docType, linkedRoleId, ...(scope ? { linkedPermissionScope: scope, grantRoleId } : {}) },
      });
      return toForm(row);
    });
  }

  /** Forms of `orgId`, oldest first. */
  async list(orgId: string): Promise<FormDto[]> {
    const rows = (await this.db.knex('approvals.work_items').where({ orgId }).orderBy([{ column: 'createdAt' }, { column: 'id' }])) as WorkItemRow[];
    return rows.map(toForm);
  }

  /** One form. @throws 404 `FORM_NOT_FOUND` */
  async get(orgId: string, id: string): Promise<FormDto> {
    return toForm(await this.row(orgId, id));
  }

  /** The form row, read in `trx` when given. @throws 404 `FORM_NOT_FOUND` (`field` when given) */
  async row(orgId: string, id: string, trx?: Knex.Transaction, field?: string): Promise<WorkItemRow> {
    const row = (await (trx ?? this.db.knex)('approvals.work_items').where({ orgId, id }).first()) as WorkItemRow | undefined;
    if (!row) throw approvalsErrors.formNotFound(field);
    return row;
  }

  /** The form's positions in order (empty: the default line). @throws 404 `FORM_NOT_FOUND` */
  async line(orgId: string, id: string, trx?: Knex.Transaction): Promise<PositionDto[]> {
    await this.row(orgId, id, trx);
    return (await this.positions(orgId, id, trx)).map(toPosition);
  }

  /** Position rows of a form, in order. */
  async positions(orgId: string, workItemId: string, trx?: Knex.Transaction): Promise<PositionRow[]> {
    return (await (trx ?? this.db.knex)('approvals.line_positions').where({ orgId, workItemId }).orderBy('position')) as PositionRow[];
  }

  /**
   * Replaces every position of the form's line and emits `reporting.approvalline.changed`.
   * `role` needs `resolveRoleId` (a role of the organization; `resolveMemberConnectedId` is its
   * optional fallback), `member` needs `resolveMemberConnectedId` (a member of the organization),
   * `drafter` takes neither.
   * @throws 404 `FORM_NOT_FOUND`, `ROLE_NOT_FOUND`, `MEMBER_NOT_FOUND` (`field`), 400 `VALIDATION_FAILED` (`field`)
   */
  async replaceLine(orgId: string, id: string, positions: ReadonlyArray<PositionInput>): Promise<PositionDto[]> {
    positions.forEach((p, i) => checkShape(p, i));
    return this.db.transaction(async (trx) => {
      await trx('approvals.work_items').where({ orgId, id }).forUpdate().first().then((r) => { if (!r) throw approvalsErrors.formNotFound(); });
      const memberIds = positions.map((p) => p.resolveMemberConnectedId).filter((m): m is string => !!m);
      const people = await peopleOf(trx, orgId, memberIds);
      for (const [i, p] of positions.entries()) {
        if (p.resolveRoleId && !(await this.roles.find(orgId, p.resolveRoleId, trx))) throw approvalsErrors.roleNotFound(`positions[${i}].resolveRoleId`);
        if (p.resolveMemberConnectedId && !people.has(p.resolveMemberConnectedId)) throw approvalsErrors.memberNotFound(`positions[${i}].resolveMemberConnectedId`);
      }
      const before = await this.positions(orgId, id, trx);
      await trx('approvals.line_positions').where({ orgId, workItemId: id }).delete();
      if (positions.length > 0) {
        await trx('approvals.line_positions').insert(positions.map((p, i) => ({
          id: randomUUID(), orgId, workItemId: id, position: i + 1, labelKo: p.labelKo, labelEn: p.labelEn, labelJa: p.labelJa,
          resolveType: p.resolveType, resolveRoleId: p.resolveRoleId ?? null, resolveMemberConnectedId: p.resolveMemberConnectedId ?? null,
        })));
      }
      await trx('approvals.work_items').where({ orgId, id }).update({ updatedAt: this.clock.now() });
      const after = positions.map((p) => ({ ...p, resolveRoleId: p.resolveRoleId ?? null, resolveMemberConnectedId: p.resolveMemberConnectedId ?? null }));
      await this.audit.append(trx, {
        orgId, eventType: 'reporting.approvalline.changed',
        businessData: { workItemId: id, previousCount: before.length, positions: after },
      });
      return after;
    });
  }
}

function checkShape(p: PositionInput, i: number): void {
  const field = (name: string) => `positions[${i}].${name}`;
  if (p.resolveType === 'drafter' && (p.resolveRoleId || p.resolveMemberConnectedId)) {
    throw approvalsErrors.invalid('A drafter position names no role or member.', field(p.resolveRoleId ? 'resolveRoleId' : 'resolveMemberConnectedId'));
  }
  if (p.resolveType === 'role' && !p.resolveRoleId) throw approvalsErrors.invalid('A role position names resolveRoleId.', field('resolveRoleId'));
  if (p.resolveType === 'member' && !p.resolveMemberConnectedId) throw approvalsErrors.invalid('A member position names resolveMemberConnectedId.', field('resolveMemberConnectedId'));
  if (p.resolveType === 'member' && p.resolveRoleId) throw approvalsErrors.invalid('A member position names no role.', field('resolveRoleId'));
}

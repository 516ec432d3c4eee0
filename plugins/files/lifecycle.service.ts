import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { coreRefs, inject, injectable, isUuid, type BlobStore, type Clock, type Database } from '../../core/index.ts';
import { orgsRefs, type EntitlementsService } from '../orgs/api.ts';
import { filesErrors } from './errors.ts';
import { FILES_TABLE, STORAGE_TABLE, type FileRow } from './file-row.ts';
import type { FilesService } from './files.service.ts';
import { filesRefs } from './internal-refs.ts';
import {
  MAX_DAYS, MAX_RULES, MIN_DAYS, PRESET_DAYS, assertPlanAllows, lifecyclePlan, parseConditions, planAllows, type LifecycleAction, type LifecyclePlan,
} from './lifecycle-rules.ts';

export const RULES_TABLE = 'files.lifecycle_rules';
/** The per-organization job that runs its rules, queued by the {@link LIFECYCLE_DUE} schedule. */
export const LIFECYCLE_JOB = 'files.lifecycle';
/** The schedule (every 10 minutes) that queues a {@link LIFECYCLE_JOB} for each organization whose rules are due. */
export const LIFECYCLE_DUE = 'files.lifecycle-due';
/** Rules run every 12 hours. */
export const LIFECYCLE_INTERVAL_SECONDS = 12 * 3600;
/** Files one rule moves in one run (the rest wait for the next run). */
const BATCH = 500;
const DAY_MS = 86_400_000;

interface RuleRow {
  id: string;
  orgId: string;
  action: LifecycleAction;
  unaccessedDays: number;
  scope: string | null;
  enabled: boolean;
  lastRunAt: Date | null;
  lastRunCount: number | null;
  lastRunBytes: number | null;
  createdAt: Date;
}

/** A lifecycle rule as the API answers it. @see docs/api/files.md "Lifecycle rules" */
export interface RuleDto {
  id: string;
  action: LifecycleAction;
  unaccessedDays: number;
  scope: string | null;
  enabled: boolean;
  planAllows: boolean;
  lastRunAt: string | null;
  lastRunCount: number | null;
  lastRunBytes: number | null;
  createdAt: string;
}

/** A rule body as received (each field checked here, so a bad one answers its own code). */
export interface RuleBody {
  action?: unknown;
  unaccessedDays?: unknown;
  scope?: unknown;
  enabled?: boolean;
}

/**
 * An organization's lifecycle rules: at most {@link MAX_RULES}, gated by plan (see `lifecycle-rules.ts`),
 * run every 12 hours by the organization's `files.lifecycle` job (queued with its first rule). A
 * rule kept after a downgrade answers `planAllows: false` and is skipped; `{enabled:false}` pauses
 * on any plan; deleting is allowed on any plan.
 * @see docs/api/files.md "Lifecycle rules"
 */
@injectable()
export class LifecycleService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.blob.id) private readonly blob: BlobStore,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.logger.id) private readonly logger: Logger,
    @inject(orgsRefs.entitlements.id) private readonly entitlements: EntitlementsService,
    @inject(filesRefs.files.id) private readonly files: FilesService,
  ) {}

  /** The rules with what the plan allows: `{ rules, maxRules, canCustomize, canTrash, presetDays, minDays, maxDays }`. */
  async list(orgId: string) {
    const plan = await this.plan(orgId);
    const rows = await this.db.knex<RuleRow>(RULES_TABLE).where({ orgId }).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
    return {
      rules: rows.map((r) => this.dto(r, plan)), maxRules: MAX_RULES, canCustomize: plan.canCustomize, canTrash: plan.canTrash,
      presetDays: PRESET_DAYS, minDays: MIN_DAYS, maxDays: MAX_DAYS,
    };
  }

  /**
   * Creates an enabled rule; the organization's first makes its rules due in 12 hours.
   * @throws 400 `invalid_action`, `invalid_days`, `invalid_scope`; 403 `plan_upgrade_required`
   *   (`feature` `lifecycle`, `lifecycle_custom`, or `lifecycle_rules` with `limit` and `used`)
   */
  async create(orgId: string, body: RuleBody): Promise<RuleDto> {
    const conditions = parseConditions(body);
    const plan = await this.plan(orgId);
    assertPlanAllows(plan, conditions);
    return this.db.transaction(async (trx) => {
      // The storage row is the organization's lock: concurrent creates count one after the other.
      await trx(STORAGE_TABLE).insert({ orgId }).onConflict('orgId').ignore();
      const [storage] = await trx(STORAGE_TABLE).where({ orgId }).forUpdate().select('lifecycleNextRunAt');
      const [{ count }] = await trx(RULES_TABLE).where({ orgId }).count<{ count: number }[]>({ count: '*' });
      if (Number(count) >= MAX_RULES) throw filesErrors.tooManyRules(MAX_RULES, Number(count));
      const row: RuleRow = {
        id: randomUUID(), orgId, ...conditions, enabled: true, lastRunAt: null, lastRunCount: null, lastRunBytes: null, createdAt: this.clock.now(),
      };
      await trx(RULES_TABLE).insert(row);
      // The organization's first rule: its rules are due in 12 hours.
      if (!storage?.lifecycleNextRunAt) {
        await trx(STORAGE_TABLE).where({ orgId }).update({ lifecycleNextRunAt: new Date(this.clock.now().getTime() + LIFECYCLE_INTERVAL_SECONDS * 1000) });
      }
      return this.dto(row, plan);
    });
  }

  /**
   * Changes a rule: a body of only `{enabled:false}` pauses it on any plan; anything else (re-enabling,
   * new conditions) must fit the plan. Fields left out keep their values.
   * @throws 404 for a rule the organization does not have; the codes of {@link create} but `lifecycle_rules`
   */
  async update(orgId: string, ruleId: string, body: RuleBody): Promise<RuleDto> {
    const row = await this.rule(orgId, ruleId);
    const plan = await this.plan(orgId);
    const pauseOnly = Object.keys(body).length === 1 && body.enabled === false;
    const conditions = pauseOnly ? row : parseConditions({
      action: 'action' in body ? body.action : row.action,
      unaccessedDays: 'unaccessedDays' in body ? body.unaccessedDays : row.unaccessedDays,
      scope: 'scope' in body ? body.scope : row.scope,
    });
    if (!pauseOnly) assertPlanAllows(plan, conditions);
    const changes = { action: conditions.action, unaccessedDays: conditions.unaccessedDays, scope: conditions.scope, enabled: body.enabled ?? row.enabled };
    await this.db.knex(RULES_TABLE).where({ orgId, id: ruleId }).update(changes);
    return this.dto({ ...row, ...changes }, plan);
  }

  /** Deletes a rule (any plan). @throws 404 for a rule the organization does not have */
  async remove(orgId: string, ruleId: string): Promise<void> {
    const removed = isUuid(ruleId) ? await this.db.knex(RULES_TABLE).where({ orgId, id: ruleId }).delete().returning('id') : [];
    if (removed.length === 0) throw filesErrors.ruleNotFound();
  }

  /**
   * Runs the organization's enabled rules that its plan allows, one after the other. A rule that
   * fails, or a file a rule cannot move, is logged and skipped: the others still run.
   */
  async runRules(orgId: string): Promise<void> {
    const plan = await this.plan(orgId);
    const rules = await this.db.knex<RuleRow>(RULES_TABLE).where({ orgId, enabled: true }).orderBy('createdAt');
    for (const rule of rules) {
      if (!planAllows(plan, rule)) continue;
      try {
        await this.runRule(rule);
      } catch (err) {
        this.logger.error({ err, orgId, ruleId: rule.id }, 'files: a lifecycle rule failed');
      }
    }
  }

  private async runRule(rule: RuleRow): Promise<void> {
    const now = this.clock.now();
    const due = this.db.knex<FileRow>(FILES_TABLE).where({ orgId: rule.orgId }).whereNull('deletedAt')
      .whereRaw('coalesce(last_accessed_at, uploaded_at) <= ?', [new Date(now.getTime() - rule.unaccessedDays * DAY_MS)]);
    if (rule.scope) due.where({ scope: rule.scope });
    // Sealed approval attachments are never trashed by a rule.
    if (rule.action === 'trash') due.where({ sealed: false });
    else due.whereNot({ storageClass: 'STANDARD_IA' });
    const files = await due.orderBy('uploadedAt').limit(BATCH);
    let count = 0;
    let bytes = 0;
    for (const file of files) {
      try {
        if (rule.action === 'trash') await this.files.trash(rule.orgId, file.id);
        else {
          await this.blob.setStorageClass(file.blobKey, 'STANDARD_IA');
          await this.db.knex(FILES_TABLE).where({ orgId: rule.orgId, id: file.id }).update({ storageClass: 'STANDARD_IA' });
        }
        count += 1;
        bytes += Number(file.sizeBytes);
      } catch (err) {
        this.logger.warn({ err, orgId: rule.orgId, ruleId: rule.id, fileId: file.id }, 'files: a lifecycle rule could not move a file');
      }
    }
    await this.db.knex(RULES_TABLE).where({ orgId: rule.orgId, id: rule.id }).update({ lastRunAt: now, lastRunCount: count, lastRunBytes: bytes });
  }

  private async rule(orgId: string, ruleId: string): Promise<RuleRow> {
    const row = isUuid(ruleId) ? await this.db.knex<RuleRow>(RULES_TABLE).where({ orgId, id: ruleId }).first() : undefined;
    if (!row) throw filesErrors.ruleNotFound();
    return row;
  }

  private async plan(orgId: string): Promise<LifecyclePlan> {
    return lifecyclePlan(await this.entitlements.planOf(orgId));
  }

  private dto(row: RuleRow, plan: LifecyclePlan): RuleDto {
    return {
      id: row.id, action: row.action, unaccessedDays: row.unaccessedDays, scope: row.scope, enabled: row.enabled, planAllows: planAllows(plan, row),
      lastRunAt: row.lastRunAt?.toISOString() ?? null, lastRunCount: row.lastRunCount, lastRunBytes: row.lastRunBytes === null ? null : Number(row.lastRunBytes),
      createdAt: row.createdAt.toISOString(),
    };
  }
}

import { createHash } from 'node:crypto';
import { coreRefs, inject, injectable, SealBindingError, type Database, type SealField, type SealPurposeContext, type PurposeDefinition, type PurposeFieldContext } from '../../core/index.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { rbacRefs, type RolesService } from '../rbac/api.ts';
import { approvalsErrors } from './errors.ts';
import type { Attachment, InstanceRow } from './records.ts';

const STAMP_SUBJECT = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\|approve\|reject$/;
const SUBMIT_SUBJECT = /^[^|]+\|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\|submit$/;

/**
 * Approval stamp field order and repeatable keys as fixed by the spec; `index.ts` adds
 * `buildFields`. The subject is `{instanceId}|approve|reject`.
 * @see docs/seals.md
 */
export const APPROVAL_STAMP_PURPOSE = {
  purpose: 'approval.stamp',
  allowedInputs: ['input.reason'],
  fieldKeys: [
    'org', 'instance', 'number', 'title', 'decision', 'requester', 'body.sha256', 'attachments.sha256', 'grant', 'input.reason',
  ],
  repeatableKeys: ['grant'],
} as const satisfies PurposeDefinition;

/** Lowercase hex SHA-256 of UTF-8 text. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The attachment manifest that `attachments.sha256` hashes: the JSON array of the attachments in
 * submitted order, each `{"Name","Sha256","Size"}` in that key order, no white space (`[]` when
 * there are none). @see docs/api/approvals.md "The binding"
 */
export const attachmentManifest = (attachments: readonly Attachment[]): string =>
  JSON.stringify(attachments.map((a) => ({ Name: a.Name, Sha256: a.Sha256, Size: a.Size })));

/** Subject of the submit seal: `{slug}|{workItemId}|submit`. @see docs/api/approvals.md "Submitting" */
export const submitSubject = (slug: string, workItemId: string): string => `${slug}|${workItemId}|submit`;

/** Subject of a stamp seal: `{instanceId}|approve|reject` (literal; the decision is a signed field). */
export const stampSubject = (instanceId: string): string => `${instanceId}|approve|reject`;

/**
 * Rule 5, "a seal for another instance": whether a seal signed for stamp subject `signed` and
 * presented on stamp subject `presented` is a stamp seal over another instance (both
 * `{instanceId}|approve|reject`). The kernel then verifies it and answers 403
 * `seal_binding_mismatch` instead of 401 `STEPUP_FAILED` (`other_subject`); a submit seal stays a wrong seal.
 * @see docs/api/approvals.md "The binding"
 */
export const isOtherStampInstance = (signed: string, presented: string): boolean =>
  signed !== presented && STAMP_SUBJECT.test(signed) && STAMP_SUBJECT.test(presented);

/**
 * Builds the signed fields of purpose `approval.stamp` from the database (spec rules 2–5), when the
 * options are issued and again at `/stamp`: `org` (slug), `instance`, `number`, `title`,
 * `decision` (`reject` when the options request carried `input.reason`, else `approve`),
 * `requester` (ConnectedId), `body.sha256`, `attachments.sha256`, and one `grant` per scope of the
 * role the permission form assigns — its linked role, or the role backing its
 * `linkedPermissionScope` (that one scope) — approve only. A submit subject binds no fields. Only an approver of the
 * instance may ask; anyone else gets 404 `INSTANCE_NOT_FOUND`, so ids reveal nothing.
 * @see docs/api/approvals.md "The binding"
 */
@injectable()
export class StampBinding {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(rbacRefs.roles.id) private readonly roles: RolesService,
  ) {}

  /** The field builder registered for `approval.stamp`. @throws 400 `invalid_subject`, 404 `INSTANCE_NOT_FOUND`, 409 `REPORT_NOT_STAMPED` */
  async fields({ subject, inputs, context }: PurposeFieldContext<SealPurposeContext>): Promise<SealField[]> {
    if (SUBMIT_SUBJECT.test(subject)) return [];
    const match = STAMP_SUBJECT.exec(subject);
    if (!match) throw new SealBindingError('invalid_subject', 'approval.stamp subjects are {instanceId}|approve|reject or {slug}|{workItemId}|submit');
    const row = (await this.db.knex('approvals.instances').where({ id: match[1] }).first()) as InstanceRow | undefined;
    if (!row || !(await this.isApprover(row, context.accountId))) throw approvalsErrors.instanceNotFound();
    if (row.docType === 'report') throw approvalsErrors.reportNotStamped();
    const org = await this.orgs.findById(row.orgId);
    const decision = inputs.some((i) => i.key === 'input.reason') ? 'reject' : 'approve';
    const grants = decision === 'approve' && row.grantRoleId ? [...new Set(await this.roles.templateScopes(row.orgId, row.grantRoleId))] : [];
    return [
      { key: 'org', value: org?.slug ?? '' },
      { key: 'instance', value: row.id },
      { key: 'number', value: row.documentNumber },
      { key: 'title', value: row.title },
      { key: 'decision', value: decision },
      { key: 'requester', value: row.requesterConnectedId },
      { key: 'body.sha256', value: sha256Hex(row.body) },
      { key: 'attachments.sha256', value: sha256Hex(attachmentManifest(row.attachments)) },
      ...grants.map((value) => ({ key: 'grant', value })),
    ];
  }

  /** Whether the account holds an approver step of the instance (through its membership in the instance's organization). */
  async isApprover(row: InstanceRow, accountId: string): Promise<boolean> {
    const hit = await this.db.knex('approvals.steps as s')
      .join('orgs.member_directory as m', (j) => j.on('m.membership_id', '=', 's.approver_connected_id').andOn('m.org_id', '=', 's.org_id'))
      .where({ 's.orgId': row.orgId, 's.instanceId': row.id, 's.kind': 'approver', 'm.accountId': accountId }).first('s.id');
    return !!hit;
  }
}

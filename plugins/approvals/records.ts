/** Rows of the approvals plugin's tables, as knex answers them (camelCase). @see migrations/approvals/001_approvals.ts */
import type { Knex } from 'knex';

export type DocType = 'permission' | 'document' | 'report';
export type ResolveType = 'drafter' | 'role' | 'member';
export type InstanceStatus = 'pending' | 'approved' | 'rejected' | 'unroutable' | 'sent';
export type StepStatus = 'waiting' | 'pending' | 'approved' | 'rejected' | 'received' | 'skipped';

/** `approvals.work_items`: a form. */
export interface WorkItemRow {
  id: string; orgId: string; docType: DocType; title: string; description: string | null; linkedRoleId: string | null;
  /** The single scope a permission form grants instead of a chosen role (migration 003). */
  linkedPermissionScope: string | null;
  /** The role assigned on final approval: `linkedRoleId`, or the role backing `linkedPermissionScope`. */
  grantRoleId: string | null;
  createdBy: string; createdAt: Date; updatedAt: Date;
}

/** `approvals.line_positions`. */
export interface PositionRow {
  id: string; orgId: string; workItemId: string; position: number; labelKo: string; labelEn: string; labelJa: string;
  resolveType: ResolveType; resolveRoleId: string | null; resolveMemberConnectedId: string | null;
}

/**
 * An attachment as submitted and signed: its manifest entry (`Name`, `Sha256`, `Size`), and the
 * file box file it is when it was given by `FileId`.
 */
export interface Attachment { Name: string; Sha256: string; Size: number; FileId?: string }

/** `approvals.instances`. */
export interface InstanceRow {
  id: string; orgId: string; workItemId: string; docType: DocType; documentNumber: string; title: string; body: string;
  attachments: Attachment[]; linkedRoleId: string | null; linkedPermissionScope: string | null; grantRoleId: string | null; requesterConnectedId: string; requesterKind: 'human' | 'agent';
  status: InstanceStatus; createdAt: Date; decidedAt: Date | null;
}

/** `approvals.steps`: one approver (or, on reports, one recipient) of an instance. */
export interface StepRow {
  id: string; orgId: string; instanceId: string; stepOrder: number; labelKo: string; labelEn: string; labelJa: string;
  kind: 'approver' | 'receiver'; approverConnectedId: string; status: StepStatus; reason: string | null;
  credentialId: string | null; stampedAt: Date | null;
}

/** A person as approval pages name them: display name, else email; and whether they are active. */
export interface Person { name: string; email: string; accountId: string; active: boolean }

/**
 * People of `orgId` by membership id (every status), from the orgs plugin's published read contract
 * `orgs.member_directory`. @see docs/plugins.md "Reading members in SQL"
 */
export async function peopleOf(db: Knex | Knex.Transaction, orgId: string, ids: readonly string[]): Promise<Map<string, Person>> {
  if (ids.length === 0) return new Map();
  const rows = (await db('orgs.member_directory').where({ orgId }).whereIn('membershipId', [...new Set(ids)])
    .select('membershipId', 'accountId', 'email', 'displayName', 'status')) as Array<{ membershipId: string; accountId: string; email: string; displayName: string | null; status: string }>;
  return new Map(rows.map((r) => [r.membershipId, { name: r.displayName || r.email, email: r.email, accountId: r.accountId, active: r.status === 'active' }]));
}

import type { Knex } from 'knex';
import { peopleOf, type InstanceRow, type StepRow } from './records.ts';

/** An instance as clients see it (the spec's read model). @see docs/api/approvals.md "The instance object" */
export interface InstanceDto {
  InstanceId: string; DocumentNumber: string; WorkItemId: string; DocType: InstanceRow['docType']; Title: string; Body: string;
  Attachments: InstanceRow['attachments']; Status: InstanceRow['status']; RequesterConnectedId: string; CreatorName: string;
  IsRequester: boolean; IsReceiver: boolean; MyStepStatus: string | null; LinkedRoleId: string | null; LinkedPermissionScope: string | null;
  Steps: Array<{
    Order: number; LabelKo: string; LabelEn: string; LabelJa: string; Kind: StepRow['kind']; ApproverConnectedId: string;
    ApproverName: string; Status: StepRow['status']; Reason: string | null; StampedAt: string | null;
  }>;
  CreatedAt: string; DecidedAt: string | null;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/**
 * Renders instances for the member `viewerId` (`IsRequester`, `IsReceiver` — a recipient of a
 * report — and `MyStepStatus`, the status of the viewer's own step or null), with names from the
 * member directory. Reads steps of every instance with one query.
 */
export async function renderInstances(db: Knex | Knex.Transaction, orgId: string, rows: readonly InstanceRow[], viewerId: string | null): Promise<InstanceDto[]> {
  if (rows.length === 0) return [];
  const steps = (await db('approvals.steps').where({ orgId }).whereIn('instanceId', rows.map((r) => r.id)).orderBy(['instanceId', 'stepOrder'])) as StepRow[];
  const people = await peopleOf(db, orgId, [...rows.map((r) => r.requesterConnectedId), ...steps.map((s) => s.approverConnectedId)]);
  const name = (id: string) => people.get(id)?.name ?? '';
  return rows.map((r) => {
    const mine = steps.filter((s) => s.instanceId === r.id);
    const my = mine.find((s) => s.approverConnectedId === viewerId);
    return {
      InstanceId: r.id, DocumentNumber: r.documentNumber, WorkItemId: r.workItemId, DocType: r.docType, Title: r.title, Body: r.body,
      Attachments: r.attachments.map((a) => ({ Name: a.Name, Sha256: a.Sha256, Size: a.Size, ...(a.FileId ? { FileId: a.FileId } : {}) })), Status: r.status, RequesterConnectedId: r.requesterConnectedId, CreatorName: name(r.requesterConnectedId),
      IsRequester: r.requesterConnectedId === viewerId, IsReceiver: my?.kind === 'receiver', MyStepStatus: my?.status ?? null,
      LinkedRoleId: r.linkedRoleId, LinkedPermissionScope: r.linkedPermissionScope,
      Steps: mine.map((s) => ({
        Order: s.stepOrder, LabelKo: s.labelKo, LabelEn: s.labelEn, LabelJa: s.labelJa, Kind: s.kind, ApproverConnectedId: s.approverConnectedId,
        ApproverName: name(s.approverConnectedId), Status: s.status, Reason: s.reason, StampedAt: iso(s.stampedAt),
      })),
      CreatedAt: iso(r.createdAt)!, DecidedAt: iso(r.decidedAt),
    };
  });
}

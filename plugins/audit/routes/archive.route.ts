import { DAY_MS, dayStartMs, notFound, route, type BlobStore, type Clock, type AuthzService, type Principal, type RouteDef } from '../../../core/index.ts';
import type { EntitlementsService, OrganizationsService } from '../../orgs/api.ts';
import type { DayFileArchive, DayFileRow } from '../day-files.ts';
import type { BatchArchive } from '../batch-files.ts';
import { auditErrors } from '../errors.ts';
import { requireWholeArchive } from '../visibility.ts';
import { compactUrlsQuery, compactUrlsResponse, presignQuery, presignResponse } from '../schemas/archive.ts';
import { MAX_SPAN_DAYS } from './query.route.ts';

/** Seconds a day file's signed URL works. @see docs/api/audit.md */
export const DAY_FILE_URL_SECONDS = 300;

export interface ArchiveRouteDeps {
  archive: DayFileArchive;
  batches: BatchArchive;
  blob: BlobStore;
  clock: Clock;
  organizations: OrganizationsService;
  entitlements: EntitlementsService;
  authz: AuthzService;
}

function parseDay(day: string, field: string): number {
  try {
    return dayStartMs(day);
  } catch {
    throw auditErrors.invalid(field, 'must be a calendar day YYYY-MM-DD');
  }
}

/**
 * `GET /api/v1/admin/audit/presign?orgSlug&day` → one day file with a signed URL, or `?orgSlug&seq`
 * → the raw batch file holding that record;
 * `GET /api/v1/admin/audit/compact/urls?orgSlug&from&to` → the day files of a window (at most 90
 * days, both ends inclusive) with signed URLs. Session; the organization's Owner holding the
 * unconstrained `org.audit_event_log.list` scope, on Pro or higher (403 `PERMISSION_DENIED` /
 * `UPGRADE_REQUIRED` with `feature`), since a whole file holds every event, `payment.*` included;
 * 404 for a non-member and for a day without a file. URLs expire after {@link DAY_FILE_URL_SECONDS}.
 * @see docs/api/audit.md "Archive"
 */
export function archiveRoutes(deps: ArchiveRouteDeps): RouteDef[] {
  const authorize = async (orgSlug: string, principal: Principal) => {
    const org = await deps.organizations.resolveContext(orgSlug, principal);
    if (!org?.membership) throw notFound();
    await requireWholeArchive(principal, org, deps.authz, () => deps.entitlements.hasFeature(org.organization.id, 'feature.audit.view_all'));
    return org;
  };
  const link = async (orgSlug: string, row: DayFileRow) => {
    const fileName = `audit-${orgSlug}-${row.day}.parquet`;
    const expiresAt = new Date(deps.clock.now().getTime() + DAY_FILE_URL_SECONDS * 1000).toISOString();
    const url = await deps.blob.presignGet(row.blobKey, { expiresInSeconds: DAY_FILE_URL_SECONDS, fileName });
    return {
      day: row.day, url, expiresAt, fileName, sha256: row.sha256, byteSize: row.byteSize, rowCount: row.rowCount,
      firstSeq: row.firstSeq, lastSeq: row.lastSeq, prevHash: row.prevHash, headHash: row.headHash,
    };
  };
  return [
    route({
      method: 'GET', path: '/api/v1/admin/audit/presign', auth: 'session', query: presignQuery,
      response: presignResponse,
      summary: 'A signed URL for one archived audit file: a day file (Parquet) or a raw batch file (JSONL)', tags: ['audit'],
      handler: async ({ query, principal }) => {
        if ((query.day === undefined) === (query.seq === undefined)) throw auditErrors.invalid('day', 'give either day or seq');
        if (query.day !== undefined) parseDay(query.day, 'day');
        const org = await authorize(query.orgSlug, principal as Principal);
        if (query.seq !== undefined) {
          const batch = await deps.batches.batchFileAt(org.organization.id, query.seq);
          if (!batch) throw notFound('No batch file holds that record (yet).');
          const fileName = `audit-${org.organization.slug}-${batch.firstSeq}-${batch.lastSeq}.jsonl`;
          return {
            kind: 'batch' as const, url: await deps.blob.presignGet(batch.blobKey, { expiresInSeconds: DAY_FILE_URL_SECONDS, fileName }),
            expiresAt: new Date(deps.clock.now().getTime() + DAY_FILE_URL_SECONDS * 1000).toISOString(), fileName, sha256: batch.sha256, byteSize: batch.byteSize,
            rowCount: batch.rowCount, firstSeq: batch.firstSeq, lastSeq: batch.lastSeq, firstSealedAt: batch.firstSealedAt.toISOString(), lastSealedAt: batch.lastSealedAt.toISOString(),
          };
        }
        const row = await deps.archive.dayFile(org.organization.id, query.day!);
        if (!row) throw notFound('No day file for that day.');
        return link(org.organization.slug, row);
      },
    }),
    route({
      method: 'GET', path: '/api/v1/admin/audit/compact/urls', auth: 'session', query: compactUrlsQuery,
      response: compactUrlsResponse,
      summary: 'Signed URLs for the archived audit day files of a window', tags: ['audit'],
      handler: async ({ query, principal }) => {
        const from = parseDay(query.from, 'from');
        const to = parseDay(query.to, 'to');
        if (from > to) throw auditErrors.invalid('from', 'must not be after to');
        const days = (to - from) / DAY_MS + 1;
        if (days > MAX_SPAN_DAYS) throw auditErrors.spanTooLong(days);
        const org = await authorize(query.orgSlug, principal as Principal);
        const rows = await deps.archive.dayFiles(org.organization.id, query.from, query.to);
        return { from: query.from, to: query.to, files: await Promise.all(rows.map((r) => link(org.organization.slug, r))) };
      },
    }),
  ];
}

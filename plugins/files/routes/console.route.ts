import { route, type AuthzService, type HandlerInput, type OrgContext, type Principal, type RouteDef } from '../../../core/index.ts';
import { assertReaches, assertSeesAll, fileVisibility } from '../console-visibility.ts';
import type { FilesService } from '../files.service.ts';
import type { SharesService } from '../shares.service.ts';
import { consoleListQuery, consoleUploadQuery, fileIdParams, shareBody } from '../schemas/requests.ts';
import { uploadContext } from '../upload-context.ts';
import type { AppGroupDirectory } from '../../keys/api.ts';
import type { MeetingDirectory } from '../api.ts';
import { file, filePage, share, trashed } from '../schemas/responses.ts';
import { FILE_UPLOAD } from './files.route.ts';

/**
 * The file box in the console (`/api/org/{slug}/files`, a member's session or a machine token):
 * upload, list (own files by default, everyone's with `org.org_file.list`), trash, restore and
 * share. A member reaches the files they uploaded; Owner and Admin (or a role holding
 * `org.org_file.list` unconstrained) every file of the organization. Others' files look absent (404).
 * @see docs/api/files.md "Console"
 */
export function consoleRoutes(
  files: FilesService, shares: SharesService, authz: AuthzService,
  directories: { meetings: readonly MeetingDirectory[]; appGroups: readonly AppGroupDirectory[] },
): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, tags: ['files'] };
  const reach = (principal: Principal, org: OrgContext) => fileVisibility(principal, org, authz);
  const reachFile = async ({ principal, org, params }: HandlerInput<unknown, unknown, { id: string }, Principal, OrgContext>) => {
    assertReaches(await reach(principal, org), await files.find(org.organization.id, params.id));
  };
  return [
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/files', query: consoleListQuery, response: filePage,
      summary: "A page of your files, or everyone's with view=all (org.org_file.list)",
      handler: async ({ principal, org, query }) => {
        const visibility = await reach(principal, org);
        if (query.view === 'all') assertSeesAll(visibility);
        return files.list(org.organization.id, { ...query, ...(query.view === 'all' ? {} : { uploadedBy: visibility.self }) });
      },
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/files', query: consoleUploadQuery, upload: FILE_UPLOAD, status: 201, response: file,
      summary: 'Upload a file (multipart part `file`, at most 10 MiB) as yourself, optionally for a meeting or an app group',
      handler: async ({ principal, org, query, upload }) => {
        const { self } = await reach(principal, org);
        return files.upload(org.organization.id, self, upload, await uploadContext(directories, org.organization.id, self, query));
      },
    }),
    route({
      ...common, method: 'DELETE', path: '/api/org/{slug}/files/{id}', params: fileIdParams, response: trashed,
      summary: 'Move a file you reach to the trash',
      guard: reachFile, handler: ({ org, params }) => files.trash(org.organization.id, params.id),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/files/{id}/restore', params: fileIdParams, response: file,
      summary: 'Bring a trashed file you reach back (if it fits the quota)',
      guard: reachFile, handler: ({ org, params }) => files.restore(org.organization.id, params.id),
    }),
    route({
      ...common, method: 'PATCH', path: '/api/org/{slug}/files/{id}/share', params: fileIdParams, body: shareBody, response: share,
      summary: 'Set the share mode of a file you reach',
      guard: reachFile, handler: ({ org, params, body }) => shares.setMode(org.organization.id, params.id, body.mode),
    }),
  ];
}

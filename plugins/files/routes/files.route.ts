import { route, type RouteDef } from '../../../core/index.ts';
import type { FilesService } from '../files.service.ts';
import { receiveFile } from '../multipart.ts';
import { fileIdParams, listQuery, uploadForm } from '../schemas/requests.ts';
import { download, file, filePage, trashed } from '../schemas/responses.ts';
import { keyOrg } from './org-key.ts';

/**
 * The file box on the public API (`X-Api-Key`, organization-wide keys): list, upload (multipart,
 * streamed), download URL, trash and restore, always within the key's organization.
 * @see docs/api/files.md
 */
export function fileRoutes(files: FilesService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/public/v1/files', auth: 'apiKey', query: listQuery, response: filePage,
      summary: "A page of the organization's files (or its trash)", tags: ['files'],
      handler: ({ principal, query }) => files.list(keyOrg(principal), query),
    }),
    route({
      method: 'POST', path: '/api/public/v1/files', auth: 'apiKey', streamBody: { contentType: 'multipart/form-data', schema: uploadForm },
      status: 201, response: file,
      summary: 'Upload a file (multipart part `file`, at most 10 MiB)', tags: ['files'],
      handler: ({ principal, bodyStream, request }) => {
        const orgId = keyOrg(principal);
        return receiveFile(bodyStream, request.headers, (part) => files.upload(orgId, principal.id, part));
      },
    }),
    route({
      method: 'GET', path: '/api/public/v1/files/{id}/download', auth: 'apiKey', params: fileIdParams, response: download,
      summary: 'A 10-minute download URL for a file (always as an attachment)', tags: ['files'],
      handler: ({ principal, params }) => files.download(keyOrg(principal), params.id),
    }),
    route({
      method: 'DELETE', path: '/api/public/v1/files/{id}', auth: 'apiKey', params: fileIdParams, response: trashed,
      summary: 'Move a file to the trash (its bytes stop counting at once)', tags: ['files'],
      handler: ({ principal, params }) => files.trash(keyOrg(principal), params.id),
    }),
    route({
      method: 'POST', path: '/api/public/v1/files/{id}/restore', auth: 'apiKey', params: fileIdParams, response: file,
      summary: 'Bring a trashed file back (if it fits the quota)', tags: ['files'],
      handler: ({ principal, params }) => files.restore(keyOrg(principal), params.id),
    }),
  ];
}

import { route, type RouteDef, type UploadSpec } from '../../../core/index.ts';
import type { FilesService } from '../files.service.ts';
import { filesErrors } from '../errors.ts';
import { MAX_FILE_BYTES } from '../plans.ts';
import { fileIdParams, listQuery } from '../schemas/requests.ts';
import { download, file, filePage, trashed } from '../schemas/responses.ts';
import { keyOrg } from './org-key.ts';

/** The multipart part `file`, at most 10 MiB, refused with the file box's own codes. @see docs/api/files.md "Errors" */
export const FILE_UPLOAD = {
  field: 'file', maxBytes: MAX_FILE_BYTES,
  errors: {
    notMultipart: filesErrors.multipartFormRequired, malformed: filesErrors.multipartFormRequired, partHeader: filesErrors.fileNameInvalid,
    missingPart: filesErrors.noFile, tooLarge: filesErrors.fileTooLarge,
  },
} as const satisfies UploadSpec;

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
      method: 'POST', path: '/api/public/v1/files', auth: 'apiKey', upload: FILE_UPLOAD, status: 201, response: file,
      summary: 'Upload a file (multipart part `file`, at most 10 MiB)', tags: ['files'],
      handler: ({ principal, upload }) => files.upload(keyOrg(principal), principal.id, upload),
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

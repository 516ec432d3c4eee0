import busboy from 'busboy';
import type { Readable } from 'node:stream';
import { filesErrors } from './errors.ts';

/** The `file` part of an upload as it streams: its bytes, the name and type the client gave. */
export interface FilePart {
  stream: Readable;
  fileName: string;
  declaredType: string;
}

/**
 * Parses a `multipart/form-data` body as it streams and hands the first part named `file` to
 * `consume` while it arrives (nothing is buffered whole); other parts are skipped.
 * @returns what `consume` answers.
 * @throws 400 `multipart_form_required` for another `Content-Type` (or one without a boundary),
 *   400 `no_file` when the form ends without a `file` part, 400 `BAD_REQUEST` when the body breaks
 *   off or does not parse, or what `consume` throws. Reading stops at the first failure.
 */
export function receiveFile<T>(body: Readable, headers: Record<string, string | string[] | undefined>, consume: (part: FilePart) => Promise<T>): Promise<T> {
  const type = headers['content-type'];
  if (typeof type !== 'string' || !/^multipart\/form-data\s*;/i.test(type)) return Promise.reject(filesErrors.multipartFormRequired());
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { ...headers, 'content-type': type }, defParamCharset: 'utf8', limits: { files: 1, fields: 20, fieldSize: 16 * 1024, parts: 40, headerPairs: 20 } });
  } catch {
    return Promise.reject(filesErrors.multipartFormRequired());
  }
  return new Promise<T>((resolve, reject) => {
    let taken = false;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      body.unpipe(parser);
      reject(err);
    };
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || taken) return void stream.resume();
      taken = true;
      consume({ stream, fileName: info.filename ?? '', declaredType: info.mimeType ?? '' }).then(resolve, (err: unknown) => {
        stream.resume();
        fail(err);
      });
    });
    parser.on('error', () => fail(filesErrors.malformedForm()));
    parser.on('close', () => {
      if (!taken) fail(filesErrors.noFile());
    });
    body.on('error', () => fail(filesErrors.malformedForm()));
    body.pipe(parser);
  });
}

/**
 * The file part of a `multipart/form-data` body, for routes that declare `upload`: parsed with
 * busboy as it arrives and handed over as a stream that fails past the route's limit, so an upload
 * is never held in memory whole.
 * @see docs/plugins.md "Routes are data"
 */
import { Transform, pipeline, type TransformCallback } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'koa';
import { aerieError } from '../errors.ts';
import type { UploadedFile, UploadSpec } from './route.ts';

/** An upload being read: the file part, and `discard()` to drop whatever the handler left unread. */
export interface UploadReading {
  file: UploadedFile;
  discard(): void;
}

const invalid = (message: string, field: string) => aerieError('MULTIPART_INVALID', message, { field });

/** Passes at most `maxBytes`; one byte more fails the stream with 413 `PAYLOAD_TOO_LARGE`. */
class SizeLimit extends Transform {
  private size = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(aerieError('PAYLOAD_TOO_LARGE', `The file is limited to ${this.maxBytes} bytes.`, { limitBytes: this.maxBytes }));
    done(null, chunk);
  }
}

/**
 * Reads the body of `ctx` up to the part named `spec.field` (other parts are skipped) and answers it.
 * @throws AerieError 400 `MULTIPART_INVALID` (`field`) when the body is not multipart/form-data,
 *   is malformed, or ends without that part; 415 `UNSUPPORTED_MEDIA_TYPE` for a `Content-Encoding`.
 */
export function readUpload(ctx: Context, spec: UploadSpec): Promise<UploadReading> {
  if (ctx.request.body !== undefined || !ctx.is('multipart/form-data')) throw invalid('Send the file as multipart/form-data.', spec.field);
  const encoding = ctx.get('content-encoding').toLowerCase();
  if (encoding && encoding !== 'identity') throw aerieError('UNSUPPORTED_MEDIA_TYPE', 'Send the body without Content-Encoding.');
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { fields: 20, fieldSize: 4096, parts: 30 } });
  } catch {
    throw invalid('The multipart/form-data body has no usable boundary.', spec.field);
  }
  const discard = () => {
    if (ctx.req.complete) return;
    // A refused upload's rest is dropped as it arrives until the answer is out; then the connection closes.
    ctx.set('Connection', 'close');
    ctx.req.unpipe(parser);
    ctx.req.resume();
  };
  return new Promise((resolve, reject) => {
    let limited: SizeLimit | undefined;
    parser.on('file', (name, stream, info) => {
      if (name !== spec.field || limited) return void stream.resume();
      limited = new SizeLimit(spec.maxBytes);
      pipeline(stream, limited, () => {});
      resolve({ file: { fileName: info.filename ?? 'file', contentType: info.mimeType || 'application/octet-stream', stream: limited }, discard });
    });
    // The handler's stream fails instead of waiting for bytes that will not come.
    const fail = (error: Error) => {
      if (limited) limited.destroy(error);
      else reject(error);
    };
    parser.on('error', () => {
      fail(invalid('The multipart/form-data body is malformed.', spec.field));
      discard();
    });
    parser.on('close', () => reject(invalid(`The body has no part named "${spec.field}".`, spec.field)));
    ctx.req.once('close', () => {
      if (!ctx.req.complete) fail(aerieError('BAD_REQUEST', 'The upload was interrupted.'));
    });
    ctx.req.pipe(parser);
  });
}

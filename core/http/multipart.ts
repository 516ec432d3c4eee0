/**
 * The file part of a `multipart/form-data` body, for routes that declare `upload`: parsed with
 * busboy as it arrives and handed over as a stream that fails past the route's limit, so an upload
 * is never held in memory whole.
 * @see docs/plugins.md "Routes are data"
 */
import busboy from 'busboy';
import type { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context } from 'koa';
import { aerieError, badRequest, contentEncodingRefused, payloadTooLarge } from '../errors.ts';
import type { UploadedFile, UploadSpec } from './route.ts';

/** An upload being read: the file part, and `discard()` to drop whatever the handler left unread (up to 16 MiB). */
export interface UploadReading {
  file: UploadedFile;
  discard(): void;
}

/** Bytes of a refused upload read and dropped after the answer before the connection is cut. */
const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The answer to a refused upload goes out at once, but node closes a `Connection: close` socket as
 * soon as the answer is written: under a client still sending, that is a reset, and the client loses
 * the answer. So the close waits until the rest of the body has been read and dropped.
 */
function holdCloseUntilEnd(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  const closeSoon = socket.destroySoon?.bind(socket);
  if (!closeSoon) return;
  let ended = false;
  let asked = false;
  socket.destroySoon = () => (ended ? closeSoon() : void (asked = true));
  req.once('end', () => {
    ended = true;
    if (asked) closeSoon();
  });
}

const invalid = (message: string, field: string) => aerieError('MULTIPART_INVALID', message, { field });

/** The error of each upload failure: the route's own (`spec.errors`) or the kernel's. */
function failures(spec: UploadSpec) {
  const own = spec.errors ?? {};
  return {
    notMultipart: own.notMultipart ?? (() => invalid('Send the file as multipart/form-data.', spec.field)),
    noBoundary: own.notMultipart ?? (() => invalid('The multipart/form-data body has no usable boundary.', spec.field)),
    malformed: own.malformed ?? (() => invalid('The multipart/form-data body is malformed.', spec.field)),
    partHeader: own.partHeader ?? (() => invalid(
      'A part\'s headers could not be read: a header value such as the file name holds a control character (CR, LF, …), or the form ends inside them. '
      + 'Send a file name with such characters percent-encoded (filename*=UTF-8\'\'…).', spec.field)),
    missingPart: own.missingPart ?? (() => invalid(`The body has no part named "${spec.field}".`, spec.field)),
    tooLarge: own.tooLarge ?? ((maxBytes: number) => payloadTooLarge(maxBytes, 'The file is')),
  };
}

/**
 * Reads the body of `ctx` up to the part named `spec.field` (other parts are skipped) and answers it.
 * @throws AerieError 400 `MULTIPART_INVALID` (`field`) when the body is not multipart/form-data,
 *   is malformed, or ends without that part (or the route's own errors for these, `spec.errors`);
 *   415 `UNSUPPORTED_MEDIA_TYPE` for a `Content-Encoding`.
 */
export function readUpload(ctx: Context, spec: UploadSpec): Promise<UploadReading> {
  const fail = failures(spec);
  let discarding = false;
  if (ctx.request.body !== undefined || !ctx.is('multipart/form-data')) throw fail.notMultipart();
  const encoding = ctx.get('content-encoding').toLowerCase();
  if (encoding && encoding !== 'identity') throw contentEncodingRefused();
  let parser: busboy.Busboy;
  try {
    // busboy cuts the part itself at `fileSize` (the `limit` event): one byte more than allowed means too large.
    parser = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { fields: 20, fieldSize: 4096, parts: 30, fileSize: spec.maxBytes + 1 } });
  } catch {
    throw fail.noBoundary();
  }
  const discard = () => {
    if (ctx.req.complete || discarding) return;
    discarding = true;
    ctx.set('Connection', 'close');
    ctx.req.unpipe(parser);
    holdCloseUntilEnd(ctx.req);
    let dropped = 0;
    ctx.req.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > DISCARD_MAX_BYTES) ctx.req.socket.destroy();
    });
    ctx.req.resume();
  };
  return new Promise((resolve, reject) => {
    let file: Readable | undefined;
    parser.on('file', (name, stream, info) => {
      if (name !== spec.field || file) return void stream.resume();
      file = stream;
      // An error before the handler listens (an interrupted body) must not crash the process; its reader still gets it.
      stream.on('error', () => undefined);
      // Past the limit, read no further than the bounded discard: busboy alone would go on reading
      // (and dropping) the rest of the part at wire speed, however long the client sends.
      stream.once('limit', () => {
        stream.destroy(fail.tooLarge(spec.maxBytes));
        discard();
      });
      resolve({ file: { fileName: info.filename ?? 'file', contentType: info.mimeType || 'application/octet-stream', stream }, discard });
    });
    // The handler's stream fails instead of waiting for bytes that will not come.
    const failWith = (error: Error) => {
      if (file) file.destroy(error);
      else reject(error);
    };
    parser.on('error', (err: Error) => {
      // busboy's word for part headers it cannot read: most often a control character in the file name.
      failWith(err.message === 'Malformed part header' ? fail.partHeader() : fail.malformed());
      discard();
    });
    parser.on('close', () => reject(fail.missingPart()));
    ctx.req.once('close', () => {
      if (!ctx.req.complete) failWith(badRequest('The upload was interrupted.'));
    });
    ctx.req.pipe(parser);
  });
}

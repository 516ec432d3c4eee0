import type { Socket } from 'node:net';
import type { ErrorCode } from '../error-codes.ts';

/**
 * Answers what Node's HTTP parser refuses before any route runs — headers or URL too long (431),
 * malformed requests (400) — in Aerie's error envelope instead of Node's bare status line.
 * Wired as the server's `clientError` listener.
 * @param err - the parser error (`code` `HPE_HEADER_OVERFLOW` for an over-long URL or headers).
 * @param socket - the client's socket; ended after the answer.
 * @see docs/api/errors.md
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const error: ErrorCode = tooLarge ? 'HEADERS_TOO_LARGE' : 'BAD_REQUEST';
  const body = JSON.stringify({ error, message: tooLarge ? 'The request line and headers are limited to 16 KiB.' : 'The request is not valid HTTP.' });
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`);
}

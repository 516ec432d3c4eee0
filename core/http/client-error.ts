import type { Socket } from 'node:net';
import type { ErrorCode } from '../error-codes.ts';

/** What each refusal answers: status, reason phrase, error code and message. */
const REFUSALS = {
  tooLarge: [431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'The request line and headers are limited to 16 KiB.'],
  timeout: [408, 'Request Timeout', 'REQUEST_TIMEOUT', 'The request did not arrive in time.'],
  invalid: [400, 'Bad Request', 'BAD_REQUEST', 'The request is not valid HTTP.'],
} as const satisfies Record<string, readonly [number, string, ErrorCode, string]>;

/**
 * Answers what Node's HTTP server refuses before any route runs — headers or URL too long (431),
 * headers or a whole request that did not arrive in time (408, `http.headersTimeoutSeconds` and
 * `http.requestTimeoutSeconds`), malformed requests (400) — in Aerie's error envelope instead of
 * Node's bare status line. Wired as the server's `clientError` listener.
 * @param err - the parser error (`code` `HPE_HEADER_OVERFLOW` for an over-long URL or headers,
 *   `ERR_HTTP_REQUEST_TIMEOUT` for a time-out).
 * @param socket - the client's socket; ended after the answer.
 * @see docs/api/errors.md
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const kind = err.code === 'HPE_HEADER_OVERFLOW' ? 'tooLarge' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'timeout' : 'invalid';
  const [status, reason, error, message] = REFUSALS[kind];
  socket.end(rawAnswer(status, reason, JSON.stringify({ error, message })));
}

/** A whole HTTP/1.1 answer with a JSON body that closes the connection, for a raw socket. */
export function rawAnswer(status: number, reason: string, body: string, headers: Record<string, string> = {}): string {
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n${extra}\r\n${body}`;
}

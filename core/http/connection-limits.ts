import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../error-codes.ts';
import { rawAnswer } from './client-error.ts';

/** The answer to a connection over the per-address cap, written on the raw socket before it closes. */
const TOO_MANY = rawAnswer(503, 'Service Unavailable',
  JSON.stringify({ error: 'TOO_MANY_CONNECTIONS' satisfies ErrorCode, message: 'Too many open connections from this address.' }), { 'Retry-After': '1' });

/**
 * Caps the connections one client address holds open at once: the next one is answered 503
 * `TOO_MANY_CONNECTIONS` with `Retry-After: 1` and closed, before any request is read, so one client
 * cannot take every socket (and file descriptor) the server has. Keyed by the socket's remote
 * address: behind a reverse proxy every connection comes from the proxy, so the kernel does not
 * install it when a proxy is trusted (the proxy caps its clients).
 * @param max - connections per address; 0 installs nothing.
 * @returns the live count for an address (for tests and metrics).
 */
export function limitConnectionsPerAddress(server: Server, max: number): (address: string) => number {
  const open = new Map<string, number>();
  if (max > 0) {
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? '';
      const count = (open.get(address) ?? 0) + 1;
      if (count > max) {
        socket.end(TOO_MANY);
        socket.destroySoon?.();
        return;
      }
      open.set(address, count);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left <= 0) open.delete(address);
        else open.set(address, left);
      });
    });
  }
  return (address) => open.get(address) ?? 0;
}

import { request as httpRequest } from 'node:http';

/** 64 MiB: what a flood would send if the server read everything. */
export const FLOOD_MAX = 64 * 1024 * 1024;

/**
 * POSTs a chunked body to 127.0.0.1:`port` — `prefix` first, then zero bytes 16 KiB at a time —
 * until the server answers (or {@link FLOOD_MAX} is sent). Answers the status, the body and how
 * many bytes after the prefix went out: a server that cuts the body off answers well before the end.
 * @throws Error when no answer comes within 10 s.
 */
export function chunkedFlood(port: number, path: string, contentType: string, prefix = ''): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': contentType, 'transfer-encoding': 'chunked' } }, (res) => {
      answered = true;
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, body, sent });
      });
    });
    req.on('error', () => undefined);
    if (prefix) req.write(prefix);
    const chunk = Buffer.alloc(16 * 1024);
    const pump = () => {
      while (!answered && sent < FLOOD_MAX && req.write(chunk)) sent += chunk.length;
      if (!answered && sent < FLOOD_MAX) req.once('drain', pump);
    };
    pump();
    setTimeout(() => reject(new Error('no answer')), 10_000);
  });
}

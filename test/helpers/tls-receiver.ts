import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether openssl is on the machine (CI installs it; the HTTPS receiver tests need it). */
export const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A request as the receiver got it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A local HTTPS server with a throwaway self-signed certificate for `localhost` and `127.0.0.1`
 * (made by openssl), recording every request. `caFile` is the certificate, to trust it.
 */
export class TlsReceiver {
  readonly received: ReceivedRequest[] = [];
  private constructor(private readonly server: Server, readonly caFile: string, private readonly dir: string, readonly port: number) {}

  static async start(handler: (req: ReceivedRequest, res: ServerResponse) => void = (_q, res) => res.end('ok')): Promise<TlsReceiver> {
    const dir = mkdtempSync(join(tmpdir(), 'aerie-tls-'));
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
    let receiver: TlsReceiver;
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const got = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        receiver.received.push(got);
        receiver.handler(got, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new TlsReceiver(server, cert, dir, (server.address() as AddressInfo).port);
    receiver.handler = handler;
    return receiver;
  }

  /** Answers the next requests; replaceable between tests. */
  handler: (req: ReceivedRequest, res: ServerResponse) => void = (_q, res) => res.end('ok');

  url(path = '/hook'): string {
    return `https://localhost:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

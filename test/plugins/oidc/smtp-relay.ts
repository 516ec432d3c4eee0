import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

/** A message the relay accepted, with when its SMTP transaction ended (ms since the epoch). */
export interface Relayed {
  to: string[];
  data: string;
  at: number;
}

/**
 * A real local SMTP server for `AERIE_SMTP_URL`: it answers each message `delayMs` late (a slow
 * relay), can refuse recipients (`refuse`) or hold every message until `release()`, and copies what
 * it accepts into `outbox` as `.eml` files, where the test helpers read codes.
 */
export class SmtpRelay {
  readonly received: Relayed[] = [];
  /** Recipients it answers `550` to. */
  refuse: (address: string) => boolean = () => false;
  /** Where accepted messages are also written (set to `<dataDir>/outbox` once Aerie runs). */
  outbox?: string;
  private gate?: { promise: Promise<void>; open: () => void };
  private server?: SMTPServer;
  private port = 0;

  /** @param delayMs - how late it answers each message (ms); may be changed at any time. */
  constructor(public delayMs = 0) {}

  /** `smtp://127.0.0.1:{port}` */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      disableReverseLookup: true, // no DNS in the conversation: the relay adds its delay and nothing else
      onRcptTo: (address, _session, callback) => {
        if (!this.refuse(address.address)) return callback();
        callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      },
      onData: (stream, session, callback) => {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
        stream.on('end', () => {
          void (async () => {
            await new Promise((resolve) => setTimeout(resolve, this.delayMs));
            await this.gate?.promise;
            this.received.push({ to: session.envelope.rcptTo.map((r) => r.address), data, at: Date.now() });
            if (this.outbox) {
              mkdirSync(this.outbox, { recursive: true });
              writeFileSync(join(this.outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(this.received.length).padStart(6, '0')}.eml`), data);
            }
            callback();
          })();
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** Holds every message's answer until {@link release}. */
  hold(): void {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.gate = { promise, open };
  }

  release(): void {
    this.gate?.open();
    this.gate = undefined;
  }

  /** What it accepted for `to`. */
  to(address: string): Relayed[] {
    return this.received.filter((m) => m.to.includes(address));
  }

  async close(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

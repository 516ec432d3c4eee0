import nodemailer, { type Transporter } from 'nodemailer';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

/** A message to send. `text` is required; `html` optional. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers, e.g. `X-Aerie-Template`. */
  headers?: Record<string, string>;
}

/**
 * `core.mail`: sends through SMTP when `smtpUrl` is set, otherwise writes each message as an
 * RFC 5322 `.eml` file to `<dataDir>/outbox/` (the embedded default; nothing leaves the machine).
 */
export class Mailer {
  private readonly transport: Transporter;
  private readonly outboxDir?: string;

  constructor(options: { from: string; smtpUrl?: string; outboxDir?: string }) {
    this.from = options.from;
    if (options.smtpUrl) {
      this.transport = nodemailer.createTransport(options.smtpUrl);
    } else {
      this.outboxDir = options.outboxDir;
      this.transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    }
  }
  private readonly from: string;

  /** Sends one message; returns the `.eml` path in file mode. @throws Error when SMTP refuses. */
  async send(message: MailMessage): Promise<{ messageId: string; file?: string }> {
    const info = (await this.transport.sendMail({ from: this.from, ...message })) as { messageId: string; message?: Buffer };
    if (!this.outboxDir || !info.message) return { messageId: info.messageId };
    mkdirSync(this.outboxDir, { recursive: true, mode: 0o700 });
    const file = join(this.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`);
    // Sign-in codes and invitation links: readable by Aerie's user only.
    writeFileSync(file, info.message, { mode: 0o600 });
    return { messageId: info.messageId, file };
  }

  close(): void {
    this.transport.close();
  }
}

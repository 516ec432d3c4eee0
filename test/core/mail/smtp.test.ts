import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { TestAerie } from '../../helpers/harness.ts';

/** `AERIE_SMTP_URL` sends through a real SMTP conversation (a local smtp-server as the peer). */
describe('core.mail over SMTP', () => {
  const received: Array<{ from: string; to: string[]; data: string }> = [];
  let server: SMTPServer;
  let aerie: TestAerie;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address), data });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    aerie = await TestAerie.start({ plugins: ['accounts'], env: { AERIE_SMTP_URL: `smtp://127.0.0.1:${port}`, AERIE_MAIL_FROM: 'Aerie <no-reply@aerie.test>' } });
  });
  afterAll(async () => {
    await aerie?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('delivers the sign-in code to the SMTP server and writes no outbox file', async () => {
    const res = await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'smtp-user@example.com' } });
    expect(res.status).toBe(202);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ from: 'no-reply@aerie.test', to: ['smtp-user@example.com'] });
    const code = /^Subject: Your Aerie code: (\d{6})$/m.exec(received[0].data)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    const verified = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'smtp-user@example.com', code } });
    expect(verified.status).toBe(200);
    expect(() => aerie.code('smtp-user@example.com')).toThrow('no code mailed');
  });
});

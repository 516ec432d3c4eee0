import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { coreRefs, inject, injectable, type Clock, type CryptoService, type Database, type JobsService, type Mailer, type MailMessage } from '../../core/index.ts';
import { END_USERS } from './end-user-record.ts';
import type { SignInCodeMail } from './service-interfaces.ts';

/** The background jobs that mail end users' sign-in codes: `{name}` and `{name}.none`. @see docs/api/signin.md "Email code" */
export const SEND_SIGN_IN_CODE_JOB = 'endusers.send-sign-in-code';
/**
 * Mails taken per poll: `core.jobs` polls each kind once a second in each process, so a burst of
 * code requests is mailed 20 a second per process; one sign-in's mails keep their order (its newest
 * mail holds its live code: `orderKey`).
 */
export const SIGN_IN_CODE_BATCH = 20;
/** The two kinds: the mail, and the one for addresses without an end user (its jobs mail nothing). */
export const SIGN_IN_CODE_JOB_NAMES = [SEND_SIGN_IN_CODE_JOB, `${SEND_SIGN_IN_CODE_JOB}.none`] as const;
/**
 * Its retries (core.jobs, pg-boss backoff): 5, the first 5–10 s after a failure, each wait doubling
 * (random within [d, 2d]): the last starts at most 310 s after the first failure, within the code's
 * 10 minutes. A run still going after 120 s counts as dead and is retried.
 */
export const SIGN_IN_CODE_JOB_RETRIES = { retryLimit: 5, retryDelaySeconds: 5, expireInSeconds: 120 };

/**
 * The job's data. `endUserId` null: an address no end user may sign in with — the job mails nothing
 * (queued all the same, so a request does the same work for every address). `sealedCode` is the
 * code envelope-encrypted under the master key, bound to the organization and the code's id.
 */
export interface SendSignInCodeJob {
  orgId: string;
  codeId: string;
  endUserId: string | null;
  applicationName: string;
  /** ISO 8601: a job that runs later mails nothing (the code could no longer be used). */
  expiresAt: string;
  sealedCode: string;
  /** The sign-in's order key, hashed: its mails go out one after another, in queue order. */
  order: string;
}

/** The mail: subject `Your sign-in code for {application}: {code}`, header `X-Aerie-Template: enduser-login-code`. */
export function signInCodeMessage(to: string, applicationName: string, code: string): MailMessage {
  return {
    to,
    subject: `Your sign-in code for ${applicationName}: ${code}`,
    text: `Your code to sign in to ${applicationName} is ${code}\n\nIt is valid for 10 minutes. If you did not ask for it, ignore this message.\n`,
    headers: { 'X-Aerie-Template': 'enduser-login-code' },
  };
}

/**
 * Queues and sends end users' sign-in code mail through `core.jobs`, so the code request answers
 * before any mail is sent, and in the same time whether or not an end user has the address.
 * Each code is its own job: one organization's failing mail is retried on its own (with backoff)
 * and never holds up another's.
 */
@injectable()
export class SignInCodeMailer {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
    @inject(coreRefs.jobs.id) private readonly jobs: JobsService,
    @inject(coreRefs.logger.id) private readonly logger: Logger,
  ) {}

  /** Queues the mail in the caller's transaction (the job exists only if it commits). */
  async queue(trx: Knex.Transaction, input: SignInCodeMail): Promise<void> {
    const job: SendSignInCodeJob = {
      orgId: input.orgId, codeId: input.codeId, endUserId: input.endUserId, applicationName: input.applicationName,
      expiresAt: input.expiresAt.toISOString(), sealedCode: this.crypto.envelope.encrypt(input.code, aad(input.orgId, input.codeId)),
      order: createHash('sha256').update(`${input.orgId}:${input.orderKey}`).digest('base64url').slice(0, 22),
    };
    // The same statement either way; an address without an end user goes to its own queue, so
    // requests for unknown addresses never hold up anyone's mail.
    const name = SIGN_IN_CODE_JOB_NAMES[input.endUserId ? 0 : 1];
    await this.jobs.send<SendSignInCodeJob>(name, job, { trx });
  }

  /**
   * The job's handler: mails the code to the end user's address when the job names one who may
   * still sign in (`Pending` or `Active`) and the code has not expired; otherwise does nothing. A
   * second run mails the same code again (delivery is at least once).
   * @throws the mailer's error (logged with the organization), so `core.jobs` retries the job.
   */
  async send(jobId: string, job: SendSignInCodeJob): Promise<void> {
    if (!job.endUserId || Date.parse(job.expiresAt) <= this.clock.now().getTime()) return;
    const user = (await this.db.knex(END_USERS).where({ orgId: job.orgId, id: job.endUserId }).whereIn('status', ['Pending', 'Active']).first('email')) as
      { email: string } | undefined;
    if (!user) return;
    const code = this.crypto.envelope.decryptText(job.sealedCode, aad(job.orgId, job.codeId));
    try {
      await this.mail.send(signInCodeMessage(user.email, job.applicationName, code));
    } catch (err) {
      this.logger.warn({ err, orgId: job.orgId, jobId }, 'mailing an end user sign-in code failed; the job is retried');
      throw err;
    }
  }
}

function aad(orgId: string, codeId: string): string {
  return `endusers.sign-in-code:${orgId}:${codeId}`;
}

import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { signCheckpoint, type ChainHead } from './chain/index.ts';
import type { PlatformAuditKey } from './platform-audit-key.ts';

type SealedHead = ChainHead & { sealedAt: string };

/**
 * Signs organizations' chain heads into `core.audit_checkpoints`, at most once per `intervalMs`
 * per organization (per process): the first head after a quiet period is signed at once, later
 * ones wait and the newest waiting head is signed when the interval has passed (a timer) or on
 * {@link AuditCheckpointer.flush}. Wired as the sealer's `onSealed`.
 * @see docs/audit.md "Checkpoints"
 */
export class AuditCheckpointer {
  private readonly lastSigned = new Map<string, number>();
  private readonly pending = new Map<string, SealedHead>();
  private timer?: NodeJS.Timeout;
  private key?: Promise<PlatformAuditKey>;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
    private readonly loadKey: () => Promise<PlatformAuditKey>,
    private readonly logger: Logger,
    private readonly intervalMs = 5000,
  ) {}

  /** The sealer's `onSealed`: signs now or remembers the head for later. Never throws. */
  onSealed = async (heads: SealedHead[]): Promise<void> => {
    const now = this.clock.now().getTime();
    const due: SealedHead[] = [];
    for (const head of heads) {
      const last = this.lastSigned.get(head.orgId);
      if (last === undefined || now - last >= this.intervalMs) {
        this.pending.delete(head.orgId);
        due.push(head);
      } else {
        this.pending.set(head.orgId, head);
      }
    }
    if (this.pending.size && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.intervalMs);
      this.timer.unref();
    }
    await this.sign(due);
  };

  /** Signs every waiting head now (or only `orgId`'s). @returns how many checkpoints were written. */
  async flush(orgId?: string): Promise<number> {
    const due = [...this.pending.values()].filter((h) => !orgId || h.orgId === orgId);
    for (const h of due) this.pending.delete(h.orgId);
    return this.sign(due);
  }

  /**
   * Signs one head as given and stores the checkpoint (the caller vouches for it).
   * @returns the compact JWS.
   */
  async signHead(head: SealedHead): Promise<string> {
    const key = await (this.key ??= this.loadKey());
    const jws = await signCheckpoint(head, key.privateKey, key.kid);
    await this.knex('core.audit_checkpoints').insert({
      orgId: head.orgId, seq: head.seq, chainHash: head.chainHash, sealedAt: new Date(head.sealedAt), kid: key.kid, jws, createdAt: this.clock.now(),
    });
    this.lastSigned.set(head.orgId, this.clock.now().getTime());
    return jws;
  }

  /** Stops the timer and signs what is waiting (graceful shutdown). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private sign(heads: SealedHead[]): Promise<number> {
    if (!heads.length) return Promise.resolve(0);
    // Serialized, so two flushes never sign the same organization out of order.
    const run = this.chain.then(async () => {
      let n = 0;
      for (const head of heads) {
        try {
          await this.signHead(head);
          n++;
        } catch (err) {
          this.logger.error({ err, orgId: head.orgId, seq: head.seq }, 'audit checkpoint signing failed; the next head will be signed');
        }
      }
      return n;
    });
    this.chain = run.catch(() => 0);
    return run;
  }
}

import type { Logger } from 'pino';
import type { AerieConfig } from './config/config.types.ts';
import type { Database } from './db/database.ts';
import type { CryptoService } from './crypto/index.ts';
import type { Clock } from './clock.ts';
import type { Mailer } from './mail/mailer.ts';
import type { EventBus } from './events.ts';
import type { GrantsProvider, OrgResolver } from './http/authorizer.ts';
import type { ErrorFormat } from './http/app.ts';
import type { SealService } from './seals/seal-service.types.ts';
import type { AuditService } from './audit/audit-service.types.ts';
import type { AuditHealthService } from './audit/audit-health.ts';
import type { RateLimitService } from './rate-limit/rate-limits.ts';
import type { JobsService } from './jobs/jobs.types.ts';
import type { BlobStore } from './blob/blob.types.ts';
import type { Egress } from './egress/egress.types.ts';
import type { AuditLog } from './audit/audit-log.types.ts';
import type { PasskeyStore } from './seals/passkey-store.types.ts';
import type { AuthzService } from './authz/authz-service.ts';
import type { Workers } from './workers/workers.types.ts';
import { createExtensionPoint, createServiceRef } from './refs.ts';

/** The kernel's own services, available to every plugin as `deps`. */
export const coreRefs = {
  config: createServiceRef<AerieConfig>('core.config'),
  db: createServiceRef<Database>('core.db'),
  crypto: createServiceRef<CryptoService>('core.crypto'),
  clock: createServiceRef<Clock>('core.clock'),
  mail: createServiceRef<Mailer>('core.mail'),
  events: createServiceRef<EventBus>('core.events'),
  logger: createServiceRef<Logger>('core.logger'),
  /** Passkey step-up seals, registered by the kernel before plugins init (core/seals/seal.service.ts). */
  seals: createServiceRef<SealService>('core.seals'),
  /** The sealed audit chain: `append(trx, event)` (see core/audit). */
  audit: createServiceRef<AuditService>('core.audit'),
  /** The audit sealer's lag and dead letters (core/audit/audit-health.ts). */
  auditHealth: createServiceRef<AuditHealthService>('core.auditHealth'),
  /** Counters that hold across processes: 429 `RATE_LIMITED` with `Retry-After` (core/rate-limit). */
  rateLimits: createServiceRef<RateLimitService>('core.rateLimits'),
  /** Durable background jobs on the kernel database (core/jobs, pg-boss). */
  jobs: createServiceRef<JobsService>('core.jobs'),
  /** The process's one worker-thread pool: task modules registered by name, run with transferred buffers (core/workers). */
  workers: createServiceRef<Workers>('core.workers'),
  /** Object storage: the embedded driver under `<dataDir>/blobs` or S3 (core/blob). */
  blob: createServiceRef<BlobStore>('core.blob'),
  /** The one HTTP client for user-supplied URLs: addresses checked and pinned, no redirects (core/egress). */
  egress: createServiceRef<Egress>('core.egress'),
  /** The sealed chain's read side: records, heads, checkpoints, the audit JWKS (core/audit/audit-log.types.ts). */
  auditLog: createServiceRef<AuditLog>('core.auditLog'),
  /** What a principal holds in an organization, by the router's own rule: `holds`, `require`, `permissionSet` (core/authz/authz-service.ts). */
  authz: createServiceRef<AuthzService>('core.authz'),
};

/** Extension points the kernel reads. The last contribution wins. */
export const coreExtensions = {
  /** Scopes a principal holds in an organization (route `scope` checks). */
  grants: createExtensionPoint<GrantsProvider>('core.grants'),
  /** `{slug}` → organization context (route `org: true`). */
  orgResolver: createExtensionPoint<OrgResolver>('core.orgResolver'),
  /** Registered passkeys `core.seals` verifies against (the accounts plugin contributes it). */
  passkeys: createExtensionPoint<PasskeyStore>('core.passkeys'),
  /** Error bodies of route families whose protocol fixes its own (SCIM); every contribution applies to its prefix. */
  errorFormats: createExtensionPoint<ErrorFormat>('core.errorFormats'),
};

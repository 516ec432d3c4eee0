/**
 * The plugin API: the only kernel module a plugin imports (its worker task modules import
 * `core/worker-api.ts`, and this one for types only).
 * @see docs/plugins.md
 */
export { definePlugin } from './plugins/define-plugin.ts';
export type { BootedAerie, CommandEnvironment, PluginContext, PluginDefinition, PluginRegistrar, ResolvedDeps } from './plugins/define-plugin.ts';
export { createServiceRef, createExtensionPoint } from './refs.ts';
export type { ServiceRef, ExtensionPointRef } from './refs.ts';
export { coreRefs, coreExtensions } from './core-refs.ts';
export { route, schemaRef } from './http/route.ts';
export { deadLetterSchema } from './http/kernel-schemas.ts';
export { ACTOR, DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING } from './http/schema-parts.ts';
export type { RouteDef, RouteDefinition, RawBodySpec, UploadSpec, UploadErrors, UploadedFile, RouteSchema, SchemaRef, SchemaType, AuthSpec, HandlerInput, Principal, AccountPrincipal, AccountSchemes, OrgContext, MemberOrgContext, RequestInfo, ResponseSpec, ResponseContent } from './http/route.ts';
export { delegate, Delegation, reply, Reply, type NodeHandler } from './http/reply.ts';
export { PAGE_HEADERS } from './http/page-headers.ts';
export type { AuthScheme, AuthRequest } from './http/auth-scheme.ts';
export type { GrantsProvider, OrgResolver } from './http/authorizer.ts';
export type { ErrorFormat } from './http/app.ts';
export { hasBadText, isDisplayName, isUuid, plainName } from './validation.ts';
export { AerieError, aerieError, validationFailed, unauthorized, stepUpRequired, permissionDenied, upgradeRequired, notFound, payloadTooLarge } from './errors.ts';
export { defineErrorCodes, registeredErrorCodes } from './error-codes.ts';
export type { ErrorCode, ErrorCodeInfo, ErrorCodeRegistry, ErrorCodeTable } from './error-codes.ts';
export { currentRequest } from './request-context.ts';
export type { Database } from './db/database.ts';
export { pluginSchema } from './db/migrations.ts';
export type { Clock } from './clock.ts';
export type { Mailer, MailMessage } from './mail/mailer.ts';
export type { EventBus, DomainEvent } from './events.ts';
export type { CryptoService } from './crypto/index.ts';
export type { AerieConfig } from './config/config.types.ts';
export { inject, injectable } from 'tsyringe';
export type { SealService, SealVerification, RouteSeal, StepUpOptions, SealInputs } from './seals/seal-service.types.ts';
export type { PasskeyStore, StoredPasskey } from './seals/passkey-store.types.ts';
export type { SealPurposeContext } from './seals/seal.service.ts';
export type { PurposeDefinition, PurposeFieldContext } from './seals/purpose-registry.ts';
export { SealBindingError, parseCanonicalLine } from './seals/binding.ts';
export type { SealBinding, SealField } from './seals/binding.ts';
export type { SealProof } from './seals/seal-proof.ts';
export type { AuditService, AuditEventInput, AuditActorRef, AppendOptions } from './audit/audit-service.types.ts';
export type { AuditHealth, AuditHealthService, DeadLetter, DeadLetterPage } from './audit/audit-health.ts';
export type { SealerState } from './audit/sealer.ts';
export { rateLimited } from './rate-limit/rate-limits.ts';
export { HOUR_MS, requesterNetwork, secondsUntil } from './rate-limit/rolling-window.ts';
export type { JobDefinition, JobsService, ScheduleOptions, ScheduleTick, ScheduleTimes, SendJobOptions } from './jobs/jobs.types.ts';
export { WorkerTaskError } from './workers/workers.types.ts';
export type { RunOptions, TaskFunction, WorkerTask, WorkerTaskErrorCode, Workers } from './workers/workers.types.ts';
export { BlobTooLargeError, BlobKeyError } from './blob/blob.types.ts';
export type { BlobStore, BlobInfo, PutOptions, PresignOptions } from './blob/blob.types.ts';
export { EgressError } from './egress/egress.types.ts';
export { openIdCallbackQuery } from './openid/callback-query.ts';
export { discoverProvider, finishOidc, SigninRefused, startOidc, type IdpIdentity, type OidcSigninConfig } from './openid/relying-party.ts';
export type { Egress, EgressFailureClass, EgressFetch, EgressPostOptions, EgressResponse, FetchOptions } from './egress/egress.types.ts';
export { AUDIT_SEALED_EVENT, followSealedChains, type AuditSealedPayload } from './audit/audit-sealed-event.ts';
export {
  ChainFollower, type ChainFollowerOptions, type ChainWorkOptions, type ChainClaimOptions, type ChainClaim, type ChainLaneOptions, type ChainSend,
} from './audit/chain-follower.ts';
export type { RateLimitService, RateLimiter, RateLimitSpec, RateLimitState } from './rate-limit/rate-limits.ts';
/** core.authz: scope expressions, permission sets, narrowing, separation of duties. */
export * from './authz/index.ts';
export type { AuditLog, AuditSearch, StoredCheckpoint } from './audit/audit-log.types.ts';
export type { AuditActivity, AuditActivityWindow, AuditPulse } from './audit/audit-activity.ts';
/** The sealed chain's pure functions (hashing, verification, checkpoints, export files), for the audit plugin and third parties. */
export {
  GENESIS_HASH, chainHash, payloadHash, recordChainHash, recordPayloadHash, verifyRecords, verifyCheckpoint, verifyAgainstCheckpoint, formatExportFile, loadJwks,
  compactDayFile, DAY_MS, dayStartMs, utcDay, decodeDayFile, dayRecordsNdjson, verifyDayFile, toAuditTimestamp,
} from './audit/chain/index.ts';
export type { ChainBreak, SealedAuditRecord, CompactDayTask, CompactDayResult, DayFileReport, DayFileMeta } from './audit/chain/index.ts';

/**
 * What a failed sealing transaction says about the events it held. The sealer retries `transient`
 * and `systemic` failures with back-off and dead-letters nothing for them; only a `data` failure
 * that one event still causes on its own gets that event dead-lettered.
 * @see ./sealer.ts (poison isolation), docs/audit.md "Health and dead letters"
 */

import { WorkerTaskError } from '../workers/workers.types.ts';

/** `transient`: the moment; `systemic`: the installation (schema, permissions); `data`: the events. */
export type FailureKind = 'transient' | 'systemic' | 'data';

// SQLSTATE classes: 08 connection exception, 40 transaction rollback (serialization, deadlock),
// 53 insufficient resources, 57 operator intervention (shutdown, cancel), 58 system error.
const TRANSIENT_SQLSTATE = /^(08|40|53|57|58)/;
// 22 data exception (bad value), 23505 unique violation (an event id sealed already),
// 54 program limit exceeded (e.g. 54001 stack depth on a too-deep value): caused by a row's data.
const DATA_SQLSTATE = /^(22|23505|54)/;
const TRANSIENT_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * @param err - what a sealing transaction threw.
 * @returns `transient` for connection, resource, retry and shutdown errors (by SQLSTATE, Node errno,
 *   knex's pool timeout, `core.workers` closed); `data` for a data SQLSTATE or an error without one (the
 *   hashing of the records threw: canonical JSON, record shape, stack depth); `systemic` for every
 *   other SQLSTATE (missing table, permission, constraint of the installation).
 * @example failureKind(Object.assign(new Error('terminating'), { code: '57P01' })) // 'transient'
 */
export function failureKind(err: unknown): FailureKind {
  if (!(err instanceof Error)) return 'data';
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_ERRNO.has(code))) return 'transient';
  if (err.name === 'KnexTimeoutError' || (err instanceof WorkerTaskError && err.code === 'closed')) return 'transient';
  if (/Connection terminated|connection is closed|Client has encountered a connection error/i.test(err.message)) return 'transient';
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return DATA_SQLSTATE.test(code) ? 'data' : 'systemic';
  return 'data';
}

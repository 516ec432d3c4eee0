import { isUuid } from '../validation.ts';
/**
 * "Acknowledged means sealable": the checks `core.audit.append` runs on every event before it
 * writes anything, so no event the outbox accepts can later fail to hash and stall the sealer.
 *
 * `businessData` is walked without recursion (a payload cannot exhaust the stack), bounded in depth
 * and size, and then turned into its RFC 8785 canonical form — the form the sealer will hash.
 * @see docs/audit.md "Limits of an event"
 */
import { canonicalJson } from './chain/canonical-json.ts';
import { toAuditTimestamp } from './chain/audit-record.ts';

/** Deepest nesting of objects and arrays in `businessData`, which itself counts as level 1. */
export const AUDIT_MAX_DEPTH = 32;
/** Largest `businessData` of one event: bytes of its canonical JSON (UTF-8). */
export const AUDIT_MAX_BUSINESS_DATA_BYTES = 65_536;
/** Longest `eventType`, actor id or `appGroupId`, in characters. */
export const AUDIT_MAX_NAME_LENGTH = 200;

// U+0000 (PostgreSQL text and jsonb refuse it) and UTF-16 code units that are not part of a pair
// (not valid Unicode; RFC 8785 refuses them).
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why an event cannot be sealed: `field` is a JSON-path-like location (`businessData.a[3].b`),
 * `rule` a sentence fragment (`is nested deeper than 32 levels`).
 */
export interface SealableProblem {
  field: string;
  rule: string;
}

/** What {@link checkSealable} reads of an event (the fields of `AuditEventInput`). */
export interface SealableEvent {
  orgId: unknown;
  eventType: unknown;
  actor?: { type: unknown; id: unknown };
  appGroupId?: unknown;
  occurredAt?: unknown;
  businessData?: unknown;
}

/**
 * Checks that an event will hash: `orgId` a UUID; `eventType`, the actor id and `appGroupId`
 * (when present and not empty; empty counts as absent) non-empty strings of at most {@link AUDIT_MAX_NAME_LENGTH} characters without NUL or lone
 * surrogates; `occurredAt` a valid date in years 0001–9999 (PostgreSQL has no year 0); `businessData` a plain object of JSON
 * values (finite numbers, strings and keys without NUL or lone surrogates, `Date` as its ISO text,
 * `undefined` members dropped as JSON does) at most {@link AUDIT_MAX_DEPTH} levels deep and
 * {@link AUDIT_MAX_BUSINESS_DATA_BYTES} bytes in canonical form.
 * @param event - the event as a plugin or the ingestion route passes it.
 * @param maxBytes - a tighter size limit (bytes of canonical JSON), e.g. ingestion's 16 KiB.
 * @returns `{ problem }` for the first rule broken, or `{ canonical }`: businessData's RFC 8785 text.
 * @example checkSealable({ orgId, eventType: 'app.x', businessData: { a: [1] } }) // { canonical: '{"a":[1]}' }
 */
export function checkSealable(event: SealableEvent, maxBytes = AUDIT_MAX_BUSINESS_DATA_BYTES): { problem: SealableProblem } | { canonical: string } {
  const fail = (field: string, rule: string) => ({ problem: { field, rule } });
  if (typeof event.orgId !== 'string' || !isUuid(event.orgId)) return fail('orgId', 'must be a UUID');
  const names: Array<[string, unknown, boolean]> = [['eventType', event.eventType, true], ['actor.id', event.actor?.id, !!event.actor], ['appGroupId', event.appGroupId, event.appGroupId != null && event.appGroupId !== '']];
  for (const [field, value, required] of names) {
    if (!required) continue;
    if (typeof value !== 'string' || value === '' || value.length > AUDIT_MAX_NAME_LENGTH) return fail(field, `must be a string of 1 to ${AUDIT_MAX_NAME_LENGTH} characters`);
    if (BAD_TEXT.test(value)) return fail(field, 'must not contain NUL characters or lone surrogates');
  }
  if (event.occurredAt !== undefined) {
    try {
      if (!(event.occurredAt instanceof Date)) throw new RangeError('not a Date');
      toAuditTimestamp(event.occurredAt);
      // PostgreSQL's timestamps have no year 0 (1 BC): the chain's format allows it, storage does not.
      if (event.occurredAt.getUTCFullYear() < 1) throw new RangeError('year 0');
    } catch {
      return fail('occurredAt', 'must be a valid date in years 0001 to 9999');
    }
  }
  const data = event.businessData ?? {};
  if (!isPlainObject(data)) return fail('businessData', 'must be a JSON object');
  const walked = walk(data);
  if ('field' in walked) return { problem: walked };
  // Depth is bounded now, so the recursive serializers below cannot overflow the stack. A Date or
  // an undefined member is first normalized as JSON renders it; plain JSON data needs no round trip.
  const canonical = canonicalJson(walked.plain ? data : JSON.parse(JSON.stringify(data)));
  if (Buffer.byteLength(canonical) > maxBytes) return fail('businessData', `must be at most ${maxBytes} bytes as canonical JSON`);
  return { canonical };
}

/**
 * Iterative walk of `businessData`: the first problem found, or `{ plain }` — true when it holds
 * no `Date` and no `undefined` member (nothing JSON would render differently).
 */
function walk(root: object): SealableProblem | { plain: boolean } {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: 'businessData', depth: 1 }];
  let plain = true;
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (value === null || typeof value === 'boolean') continue;
    if (value instanceof Date) {
      plain = false;
      continue;
    }
    if (typeof value === 'string') {
      if (BAD_TEXT.test(value)) return { field: path, rule: 'must not contain NUL characters or lone surrogates' };
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { field: path, rule: 'must be a finite number' };
      continue;
    }
    if (Array.isArray(value) || isPlainObject(value)) {
      if (depth > AUDIT_MAX_DEPTH) return { field: path, rule: `is nested deeper than ${AUDIT_MAX_DEPTH} levels` };
      if (Array.isArray(value)) {
        let present = 0;
        value.forEach((item, i) => {
          present++;
          stack.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 });
        });
        if (present !== value.length) plain = false; // holes, which JSON renders as null
      } else {
        for (const [key, item] of Object.entries(value)) {
          if (BAD_TEXT.test(key)) return { field: path, rule: 'has a key with NUL characters or lone surrogates' };
          if (item !== undefined) stack.push({ value: item, path: `${path}.${key}`, depth: depth + 1 });
          else plain = false;
        }
      }
      continue;
    }
    return { field: path, rule: 'must be JSON (object, array, string, finite number, boolean or null)' };
  }
  return { plain };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

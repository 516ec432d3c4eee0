import { hasBadText, isUuid } from '../validation.ts';
/**
 * "Acknowledged means sealable": the checks `core.audit.append` runs on every event before it
 * writes anything, so no event the outbox accepts can later fail to hash and stall the sealer.
 *
 * `businessData` is walked without recursion (a payload cannot exhaust the stack), bounded in depth
 * and size, and then turned into its RFC 8785 canonical form — the form the sealer will hash.
 * @see docs/audit.md "Limits of an event"
 */
import { canonicalJson, canonicalSizeProblem } from './chain/canonical-json.ts';
import { AUDIT_ACTOR_TYPES, toAuditTimestamp } from './chain/audit-record.ts';

/** Deepest nesting of objects and arrays in `businessData`, which itself counts as level 1. */
export const AUDIT_MAX_DEPTH = 32;
/** Largest `businessData` of one event: bytes of its canonical JSON (UTF-8). */
export const AUDIT_MAX_BUSINESS_DATA_BYTES = 65_536;
/** Longest `eventType`, actor id or `appGroupId`, in characters. */
export const AUDIT_MAX_NAME_LENGTH = 200;

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
 * Checks that an event will hash: `orgId` a UUID; the actor's type (when an actor is given) one of
 * `account`, `apiKey`, `machine`, `agent`, `system`; `eventType`, the actor id and `appGroupId`
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
  const shape = checkSealableShape(event);
  if ('problem' in shape) return shape;
  const data = event.businessData ?? {};
  // Depth is bounded now, so the recursive serializers below cannot overflow the stack. A Date or
  // an undefined member is first normalized as JSON renders it; plain JSON data needs no round trip.
  const canonical = canonicalJson(shape.plain ? data : JSON.parse(JSON.stringify(data)));
  const sizeRule = canonicalSizeProblem(canonical, maxBytes);
  return sizeRule ? fail('businessData', sizeRule) : { canonical };
}

/**
 * {@link checkSealable} without the canonical form and its size limit: every other rule. For a
 * caller that canonicalizes elsewhere (batch ingestion in the worker pool, after a JSON round trip).
 * @returns `{ problem }` for the first rule broken, or `{ plain }`: true when `businessData` holds
 *   no `Date` and no `undefined` member (its JSON text parses back to equal data).
 */
export function checkSealableShape(event: SealableEvent): { problem: SealableProblem } | { plain: boolean } {
  if (typeof event.orgId !== 'string' || !isUuid(event.orgId)) return fail('orgId', 'must be a UUID');
  const nameRule = nameProblem(event.eventType);
  if (nameRule) return fail('eventType', nameRule);
  if (event.actor) {
    if (!ACTOR_TYPES.has(event.actor.type)) return fail('actor.type', `must be one of ${AUDIT_ACTOR_TYPES.join(', ')}`);
    const actorRule = nameProblem(event.actor.id);
    if (actorRule) return fail('actor.id', actorRule);
  }
  if (event.appGroupId != null && event.appGroupId !== '') {
    const groupRule = nameProblem(event.appGroupId);
    if (groupRule) return fail('appGroupId', groupRule);
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
  return 'field' in walked ? { problem: walked } : walked;
}

const ACTOR_TYPES: ReadonlySet<unknown> = new Set(AUDIT_ACTOR_TYPES);

const fail = (field: string, rule: string) => ({ problem: { field, rule } });

/** Why a name (`eventType`, an actor id, `appGroupId`) is refused, or null when it is fine. */
function nameProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value === '' || value.length > AUDIT_MAX_NAME_LENGTH) return `must be a string of 1 to ${AUDIT_MAX_NAME_LENGTH} characters`;
  return hasBadText(value) ? 'must not contain NUL characters or lone surrogates' : null;
}

/** A container (object or array) met by {@link walk}, with where it sits, to name it in a problem. */
interface Frame {
  value: object;
  depth: number;
  parent: Frame | null;
  key: string | number;
}

/** `businessData.a[3].b` for a member `key` of `frame` (or the frame itself without `key`). */
function pathOf(frame: Frame, key?: string | number): string {
  const keys: Array<string | number> = key === undefined ? [] : [key];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) keys.push(f.key);
  let path = 'businessData';
  for (let i = keys.length - 1; i >= 0; i--) path += typeof keys[i] === 'number' ? `[${keys[i]}]` : `.${keys[i]}`;
  return path;
}

/**
 * Iterative walk of `businessData`: the first problem found, or `{ plain }` — true when it holds
 * no `Date` and no `undefined` member (nothing JSON would render differently). Scalars are checked
 * where they are met; only containers are stacked, and paths are built only for a problem.
 */
function walk(root: object): SealableProblem | { plain: boolean } {
  const stack: Frame[] = [{ value: root, depth: 1, parent: null, key: '' }];
  let plain = true;
  while (stack.length) {
    const frame = stack.pop()!;
    if (frame.depth > AUDIT_MAX_DEPTH) return { field: pathOf(frame), rule: `is nested deeper than ${AUDIT_MAX_DEPTH} levels` };
    const value = frame.value as Record<string | number, unknown>;
    const isArray = Array.isArray(value);
    const keys: Array<string | number> = isArray ? [] : Object.keys(value);
    const count = isArray ? (value as unknown[]).length : keys.length;
    for (let i = 0; i < count; i++) {
      const key = isArray ? i : keys[i];
      if (isArray) {
        if (!(i in value)) {
          plain = false; // a hole, which JSON renders as null
          continue;
        }
      } else if (hasBadText(key as string)) {
        return { field: pathOf(frame), rule: 'has a key with NUL characters or lone surrogates' };
      }
      const item = value[key];
      if (item === null || typeof item === 'boolean') continue;
      if (typeof item === 'string') {
        if (hasBadText(item)) return { field: pathOf(frame, key), rule: 'must not contain NUL characters or lone surrogates' };
      } else if (typeof item === 'number') {
        if (!Number.isFinite(item)) return { field: pathOf(frame, key), rule: 'must be a finite number' };
      } else if (item === undefined && !isArray) {
        plain = false;
      } else if (item instanceof Date) {
        plain = false;
      } else if (Array.isArray(item) || isPlainObject(item)) {
        stack.push({ value: item, depth: frame.depth + 1, parent: frame, key });
      } else {
        return { field: pathOf(frame, key), rule: 'must be JSON (object, array, string, finite number, boolean or null)' };
      }
    }
  }
  return { plain };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Content-bound step-up binding: the canonical line a passkey signs for a sealed action.
 *
 * Rules implemented (docs/seals.md):
 * - `binding = {version: 'aerie-stepup-v1', nonce (64 hex), purpose, subject, fields:[{key,value}]}`.
 * - line = `aerie-stepup-v1` then `|key=<UTF-8 byte length>:<value>` per item, in the order nonce,
 *   purpose, subject, then the fields exactly as listed (never re-sorted here; a purpose fixes
 *   its order, see `purpose-registry.ts`). No escaping: the byte length makes values unambiguous.
 * - `challenge = SHA-256(UTF-8 bytes of the line)`, 32 bytes.
 * Choices where the spec is silent are listed in docs/seals.md ("Canonical line").
 */
import { createHash, randomBytes as nodeRandomBytes } from 'node:crypto';
import { AerieError } from '../errors.ts';

/** Binding version carried in every binding and at the start of every canonical line. @see docs/seals.md */
export const SEAL_BINDING_VERSION = 'aerie-stepup-v1';
/** Largest value, in UTF-8 bytes, accepted for the subject or any field (Aerie's choice; the spec sets none). @see docs/seals.md */
export const MAX_SEAL_VALUE_BYTES = 16_384;

/** One signed item of a binding: `key` in `[a-z0-9_-]` segments joined by dots, any `value`. @see docs/seals.md */
export interface SealField {
  key: string;
  value: string;
}

/** A content binding as returned by `POST /api/passkey/stepup/options` (field `binding`). @see docs/seals.md */
export interface SealBinding {
  version: typeof SEAL_BINDING_VERSION;
  /** 32 random bytes as 64 lowercase hex characters. */
  nonce: string;
  purpose: string;
  subject: string;
  fields: SealField[];
}

/** Machine-readable reasons a binding is refused (`seal_binding_mismatch` is the spec's code). @see docs/api/errors.md */
export type SealBindingErrorCode =
  | 'invalid_version' | 'invalid_nonce' | 'invalid_purpose' | 'invalid_subject' | 'invalid_field_key'
  | 'reserved_field_key' | 'invalid_value' | 'value_too_long' | 'invalid_canonical_line'
  | 'unknown_purpose' | 'duplicate_purpose' | 'duplicate_input' | 'unexpected_field'
  | 'seal_binding_mismatch';

/**
 * Thrown when a binding, a canonical line or a purpose's fields break the rules.
 * An {@link AerieError}: `status` is 403 for `seal_binding_mismatch` (docs/api/errors.md) and 400
 * otherwise; exposed, because the message only names the offending key; `details` (e.g.
 * `mismatchedKeys`) are rendered beside `error` in the envelope.
 * @see docs/seals.md
 */
export class SealBindingError extends AerieError {
  override readonly name = 'SealBindingError';
  declare readonly code: SealBindingErrorCode;
  /** @param code - reason code; @param message - human text; @param details - extra fields, e.g. `mismatchedKeys`. */
  constructor(code: SealBindingErrorCode, message: string, readonly details: Record<string, unknown> = {}) {
    super(code === 'seal_binding_mismatch' ? 403 : 400, code, message, details);
  }
}

const NONCE_RE = /^[0-9a-f]{64}$/;
const PURPOSE_RE = /^[a-z0-9_]+(\.[a-z0-9_]+)*$/;
const KEY_RE = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;
const RESERVED_KEYS = new Set(['nonce', 'purpose', 'subject']);
// With the `u` flag a surrogate pair is one code point, so only lone surrogates match.
const LONE_SURROGATE_RE = /[\uD800-\uDFFF]/u;

function checkValue(name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || LONE_SURROGATE_RE.test(value)) {
    throw new SealBindingError('invalid_value', `${name} must be a well-formed Unicode string`);
  }
  if (Buffer.byteLength(value, 'utf8') > MAX_SEAL_VALUE_BYTES) {
    throw new SealBindingError('value_too_long', `${name} exceeds ${MAX_SEAL_VALUE_BYTES} UTF-8 bytes`);
  }
}

/**
 * Checks a purpose name (`api_key.long_lifetime`, `approval.stamp`, …: dot-separated `[a-z0-9_]`, ≤ 64 chars).
 * @throws SealBindingError `invalid_purpose`
 */
export function assertPurposeName(purpose: unknown): asserts purpose is string {
  if (typeof purpose !== 'string' || purpose.length > 64 || !PURPOSE_RE.test(purpose)) {
    throw new SealBindingError('invalid_purpose', 'purpose must be dot-separated [a-z0-9_] segments, at most 64 characters');
  }
}

/**
 * Checks a field key: dot-separated `[a-z0-9_-]` segments, ≤ 64 chars, not `nonce`/`purpose`/`subject`.
 * @throws SealBindingError `invalid_field_key`, `reserved_field_key`
 */
export function assertFieldKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length > 64 || !KEY_RE.test(key)) {
    throw new SealBindingError('invalid_field_key', `field key ${JSON.stringify(key)} is not dot-separated [a-z0-9_-] segments`);
  }
  if (RESERVED_KEYS.has(key)) throw new SealBindingError('reserved_field_key', `field key "${key}" is reserved`);
}

/**
 * Validates every part of a binding; values must be well-formed Unicode (no lone surrogates) of
 * at most {@link MAX_SEAL_VALUE_BYTES} UTF-8 bytes; the subject must not be empty.
 * @throws SealBindingError with the code of the first broken rule
 * @see docs/seals.md
 */
export function assertSealBinding(binding: SealBinding): void {
  if (binding?.version !== SEAL_BINDING_VERSION) throw new SealBindingError('invalid_version', `version must be ${SEAL_BINDING_VERSION}`);
  if (typeof binding.nonce !== 'string' || !NONCE_RE.test(binding.nonce)) {
    throw new SealBindingError('invalid_nonce', 'nonce must be 64 lowercase hex characters');
  }
  assertPurposeName(binding.purpose);
  checkValue('subject', binding.subject);
  if (binding.subject.length === 0) throw new SealBindingError('invalid_subject', 'subject must not be empty');
  if (!Array.isArray(binding.fields)) throw new SealBindingError('invalid_value', 'fields must be an array');
  for (const field of binding.fields) {
    assertFieldKey(field?.key);
    checkValue(`field "${field.key}"`, field.value);
  }
}

/**
 * Builds a binding with a fresh nonce (or the given one, e.g. the stored nonce when rebuilding at
 * the action); fields are copied in the order given.
 * @param input - `{purpose, subject, fields, nonce?}`; `nonce` is 64 lowercase hex when given.
 * @param randomBytes - source of the 32 nonce bytes (inject for deterministic tests).
 * @returns a validated {@link SealBinding}
 * @throws SealBindingError when any part is invalid (see {@link assertSealBinding})
 * @example buildBinding({ purpose: 'roost.rearm', subject: 'acme|BOX-1|00ff…', fields: [] })
 * @see docs/seals.md
 */
export function buildBinding(
  input: { purpose: string; subject: string; fields?: readonly SealField[]; nonce?: string },
  randomBytes: (size: number) => Uint8Array = nodeRandomBytes,
): SealBinding {
  const nonce = input.nonce ?? Buffer.from(randomBytes(32)).toString('hex');
  const binding: SealBinding = {
    version: SEAL_BINDING_VERSION,
    nonce,
    purpose: input.purpose,
    subject: input.subject,
    fields: (input.fields ?? []).map((f) => ({ key: f.key, value: f.value })),
  };
  assertSealBinding(binding);
  return binding;
}

const item = (key: string, value: string) => `|${key}=${Buffer.byteLength(value, 'utf8')}:${value}`;

/**
 * Renders the canonical line `aerie-stepup-v1|nonce=64:…|purpose=N:…|subject=N:…|<key>=N:<value>…`,
 * N being the value's length in UTF-8 bytes (decimal, no padding); no trailing separator or newline.
 * @throws SealBindingError when the binding is invalid
 * @see docs/seals.md
 */
export function canonicalLine(binding: SealBinding): string {
  assertSealBinding(binding);
  let line = SEAL_BINDING_VERSION + item('nonce', binding.nonce) + item('purpose', binding.purpose) + item('subject', binding.subject);
  for (const f of binding.fields) line += item(f.key, f.value);
  return line;
}

/**
 * The WebAuthn challenge for a binding: SHA-256 over the UTF-8 canonical line (32 bytes), or over
 * the given canonical line string.
 * @throws SealBindingError when the binding is invalid
 * @see docs/seals.md
 */
export function bindingChallenge(binding: SealBinding | string): Uint8Array<ArrayBuffer> {
  const line = typeof binding === 'string' ? binding : canonicalLine(binding);
  return new Uint8Array(createHash('sha256').update(line, 'utf8').digest());
}

/**
 * {@link bindingChallenge} as unpadded base64url, the form found in `clientDataJSON.challenge`.
 * @see docs/seals.md
 */
export function bindingChallengeBase64url(binding: SealBinding | string): string {
  return Buffer.from(bindingChallenge(binding)).toString('base64url');
}

const fail = (why: string): never => {
  throw new SealBindingError('invalid_canonical_line', `not a canonical line: ${why}`);
};

/**
 * Parses a canonical line back into its binding (used to show and compare what was signed).
 * Only a line that re-renders byte for byte is accepted.
 * @throws SealBindingError `invalid_canonical_line`, or the code of the binding rule it breaks
 * @see docs/seals.md
 */
export function parseCanonicalLine(line: string): SealBinding {
  if (typeof line !== 'string' || !line.startsWith(SEAL_BINDING_VERSION)) fail('wrong version prefix');
  const bytes = Buffer.from(line, 'utf8');
  const items: SealField[] = [];
  let pos = SEAL_BINDING_VERSION.length;
  while (pos < bytes.length) {
    if (bytes[pos] !== 0x7c) fail(`expected "|" at byte ${pos}`);
    const eq = bytes.indexOf(0x3d, pos + 1);
    const colon = eq < 0 ? -1 : bytes.indexOf(0x3a, eq + 1);
    if (colon < 0) fail(`item at byte ${pos} has no "=" or ":"`);
    const lengthText = bytes.toString('latin1', eq + 1, colon);
    if (!/^(0|[1-9][0-9]{0,5})$/.test(lengthText)) fail(`bad length at byte ${eq + 1}`);
    const end = colon + 1 + Number(lengthText);
    if (end > bytes.length) fail(`value at byte ${colon + 1} runs past the end`);
    items.push({ key: bytes.toString('latin1', pos + 1, eq), value: bytes.toString('utf8', colon + 1, end) });
    pos = end;
  }
  const [nonce, purpose, subject] = items;
  if (nonce?.key !== 'nonce' || purpose?.key !== 'purpose' || subject?.key !== 'subject') {
    fail('must start with nonce, purpose, subject');
  }
  const binding: SealBinding = {
    version: SEAL_BINDING_VERSION, nonce: nonce.value, purpose: purpose.value, subject: subject.value, fields: items.slice(3),
  };
  if (canonicalLine(binding) !== line) fail('does not re-render identically');
  return binding;
}

/**
 * Rule 5: the binding rebuilt from the database must equal what was signed, byte for byte.
 * @param expected - binding rebuilt now (with the nonce stored when the challenge was issued).
 * @param signed - the signed binding or its canonical line.
 * @throws SealBindingError `seal_binding_mismatch` (403) with `details.mismatchedKeys`
 * @see docs/seals.md
 */
export function assertBindingMatches(expected: SealBinding, signed: SealBinding | string): void {
  const signedBinding = typeof signed === 'string' ? parseCanonicalLine(signed) : signed;
  if (canonicalLine(expected) === canonicalLine(signedBinding)) return;
  const byKey = (b: SealBinding) => {
    const m = new Map<string, string[]>([['nonce', [b.nonce]], ['purpose', [b.purpose]], ['subject', [b.subject]]]);
    for (const f of b.fields) m.set(f.key, [...(m.get(f.key) ?? []), f.value]);
    return m;
  };
  const [a, b] = [byKey(expected), byKey(signedBinding)];
  const mismatchedKeys = [...new Set([...a.keys(), ...b.keys()])].filter((k) => JSON.stringify(a.get(k)) !== JSON.stringify(b.get(k)));
  throw new SealBindingError('seal_binding_mismatch', 'the signed content differs from the current document', {
    mismatchedKeys: mismatchedKeys.length > 0 ? mismatchedKeys : ['(order)'],
  });
}

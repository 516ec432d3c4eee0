/**
 * Registry of step-up purposes: which typed inputs a purpose accepts and how it builds the signed
 * content fields.
 *
 * Enforces (docs/seals.md):
 * - inputs typed by the person are trimmed and kept only when the purpose allows the key;
 * - fields come out in the purpose's declared key order; repeatable keys (`grant`) are sorted
 *   ordinally by value; a non-repeatable key appears at most once;
 * - the value sent with the action must equal the bound (trimmed) input.
 */
import {
  assertFieldKey, assertPurposeName, buildBinding, SealBindingError, type SealBinding, type SealField,
} from './binding.ts';

/**
 * What a purpose's field builder receives: the request's purpose, subject, normalized inputs and the caller's context.
 * @see docs/seals.md
 */
export interface PurposeFieldContext<Context = unknown> {
  purpose: string;
  subject: string;
  /** Already trimmed and filtered by `allowedInputs`. */
  inputs: readonly SealField[];
  /** Whatever the step-up service passes through (organization, session user, …). */
  context: Context;
}

/** A purpose as registered by a plugin. @see docs/seals.md */
export interface PurposeDefinition<Context = unknown> {
  /** e.g. `approval.stamp`; dot-separated `[a-z0-9_]`. */
  purpose: string;
  /** Input keys the person may type for this purpose, e.g. `['input.reason']`; others are dropped. */
  allowedInputs: readonly string[];
  /** Key order of the signed fields (inputs included). Omitted: builder order, then inputs in `allowedInputs` order. */
  fieldKeys?: readonly string[];
  /** Keys that may repeat; their values are sorted ordinally (UTF-16 code units) and must be unique. */
  repeatableKeys?: readonly string[];
  /** Reads the current content (e.g. from the database) and returns its fields; omitted means no fields. */
  buildFields?(ctx: PurposeFieldContext<Context>): readonly SealField[] | Promise<readonly SealField[]>;
  /**
   * Whether a seal signed for subject `signed` but presented for `presented` is a seal over other
   * content of the same kind (e.g. another approval instance) rather than a wrong seal. Such a seal
   * is verified in full and, when it verifies, refused with 403 `seal_binding_mismatch`: the binding
   * rebuilt for `presented` with the signed nonce is compared with the signed one. Omitted (or
   * false): another subject is 401 `STEPUP_FAILED` with reason `other_subject`.
   */
  otherContent?(signed: string, presented: string): boolean;
}

/**
 * Trims an input value the way inputs are bound (`String.prototype.trim`: Unicode white space and line terminators).
 * @see docs/seals.md
 */
export const normalizeInputValue = (value: string): string => value.trim();

/**
 * Holds the purposes plugins register; the step-up service asks it for bindings.
 * @example registry.register({ purpose: 'roost.rearm', allowedInputs: [] })
 * @see docs/seals.md
 */
export class PurposeRegistry {
  readonly #purposes = new Map<string, PurposeDefinition<any>>();

  /**
   * Registers a purpose.
   * @throws SealBindingError `invalid_purpose`, `invalid_field_key`, `duplicate_purpose`
   */
  register<Context>(definition: PurposeDefinition<Context>): this {
    assertPurposeName(definition.purpose);
    for (const key of [...definition.allowedInputs, ...(definition.fieldKeys ?? []), ...(definition.repeatableKeys ?? [])]) {
      assertFieldKey(key);
    }
    const missing = definition.allowedInputs.filter((k) => definition.fieldKeys && !definition.fieldKeys.includes(k));
    if (missing.length > 0) {
      throw new SealBindingError('invalid_field_key', `fieldKeys of "${definition.purpose}" must list inputs ${missing.join(', ')}`);
    }
    if (this.#purposes.has(definition.purpose)) {
      throw new SealBindingError('duplicate_purpose', `purpose "${definition.purpose}" is already registered`);
    }
    this.#purposes.set(definition.purpose, definition);
    return this;
  }

  /** The definition of a purpose, or undefined when none is registered. */
  get(purpose: string): PurposeDefinition | undefined {
    return this.#purposes.get(purpose);
  }

  /** Registered purpose names, in registration order. */
  list(): string[] {
    return [...this.#purposes.keys()];
  }

  /**
   * Trims inputs and keeps only keys the purpose allows, in `allowedInputs` order; an unknown
   * purpose allows none. Empty values (after trimming) are kept: they bind "nothing typed".
   * @param inputs - `[{key, value}]` as sent with the options request (may be undefined).
   * @throws SealBindingError `duplicate_input` when an allowed key is sent twice; `invalid_value` for non-strings
   * @see docs/seals.md
   */
  normalizeInputs(purpose: string, inputs: readonly SealField[] | undefined): SealField[] {
    const allowed = this.#purposes.get(purpose)?.allowedInputs ?? [];
    const kept = new Map<string, string>();
    for (const input of inputs ?? []) {
      if (!allowed.includes(input?.key)) continue;
      if (typeof input.value !== 'string') throw new SealBindingError('invalid_value', `input "${input.key}" must be a string`);
      if (kept.has(input.key)) throw new SealBindingError('duplicate_input', `input "${input.key}" was sent twice`);
      kept.set(input.key, normalizeInputValue(input.value));
    }
    return allowed.filter((k) => kept.has(k)).map((key) => ({ key, value: kept.get(key)! }));
  }

  /**
   * Builds the binding for a step-up request: normalized inputs, the purpose's fields (ordered as
   * declared), and a fresh nonce, or `nonce` when rebuilding at the action (rule 5).
   * @throws SealBindingError `unknown_purpose`, `unexpected_field`, `duplicate_input`, or any binding rule
   * @see docs/seals.md
   */
  async buildBinding<Context>(
    request: { purpose: string; subject: string; inputs?: readonly SealField[]; context?: Context; nonce?: string },
    randomBytes?: (size: number) => Uint8Array,
  ): Promise<SealBinding> {
    const definition = this.#purposes.get(request.purpose);
    if (!definition) throw new SealBindingError('unknown_purpose', `purpose "${request.purpose}" is not registered`);
    const inputs = this.normalizeInputs(request.purpose, request.inputs);
    const built = definition.buildFields
      ? await definition.buildFields({ purpose: request.purpose, subject: request.subject, inputs, context: request.context })
      : [];
    const fields = orderFields(definition, [...built.filter((f) => !definition.allowedInputs.includes(f.key)), ...inputs]);
    return buildBinding({ purpose: request.purpose, subject: request.subject, fields, nonce: request.nonce }, randomBytes);
  }
}

function orderFields(definition: PurposeDefinition, fields: SealField[]): SealField[] {
  const repeatable = new Set(definition.repeatableKeys ?? []);
  // Without a declared order, keys keep the position of their first occurrence (groups repeats).
  const order = definition.fieldKeys ?? [...new Set(fields.map((f) => f.key))];
  const rank = (key: string) => order.indexOf(key);
  for (const f of fields) {
    if (rank(f.key) < 0) throw new SealBindingError('unexpected_field', `purpose "${definition.purpose}" does not sign "${f.key}"`);
  }
  const sorted = fields
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f.key) - rank(b.f.key)
      || (repeatable.has(a.f.key) && a.f.key === b.f.key ? ordinal(a.f.value, b.f.value) : a.i - b.i))
    .map(({ f }) => ({ key: f.key, value: f.value }));
  for (let i = 1; i < sorted.length; i++) {
    const [prev, cur] = [sorted[i - 1], sorted[i]];
    if (prev.key === cur.key && (!repeatable.has(cur.key) || prev.value === cur.value)) {
      throw new SealBindingError('unexpected_field', `field "${cur.key}" appears twice`);
    }
  }
  return sorted;
}

const ordinal = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Checks that the value sent with the action (e.g. the reason sent to `/stamp`) equals the input
 * bound in the signed binding, after the same trimming; an absent input equals the empty string.
 * @throws SealBindingError `seal_binding_mismatch` (403) with `details.mismatchedKeys: [key]`
 * @see docs/seals.md
 */
export function assertInputMatches(signed: SealBinding, key: string, sentValue: string | null | undefined): void {
  const bound = signed.fields.find((f) => f.key === key)?.value ?? '';
  if (normalizeInputValue(sentValue ?? '') !== bound) {
    throw new SealBindingError('seal_binding_mismatch', `"${key}" differs from the signed value`, { mismatchedKeys: [key] });
  }
}

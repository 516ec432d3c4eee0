import type { Ajv, ValidateFunction } from 'ajv';
import { createAjv, describeAjvError } from '../validation.ts';
import { validationFailed } from '../errors.ts';
import { sharedSchema, type RouteSchema, type SchemaRef } from './route.ts';

/**
 * ajv resolves a `$ref` against the `$id` of the schema it sits in, so `orgs/organization` named from
 * `keys/api-key` would mean `keys/orgs/organization`. Inside ajv every `$id` and every `$ref` that
 * names a schema by `$id` is made absolute under this base; the published schemas keep plain ids.
 */
const AJV_BASE = 'https://schemas.aerie.invalid/';

/** Every `$ref` value in a schema that names another schema by `$id` (not a `#…` pointer). */
export function externalRefs(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) for (const s of schema) externalRefs(s, out);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) out.push(value);
      else if (key !== 'enum' && key !== 'const') externalRefs(value, out);
    }
  }
  return out;
}

function forAjv(schema: object): object {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    (key === '$id' || key === '$ref') && typeof value === 'string' && !value.startsWith('#') && !/^[a-z]+:/i.test(value) ? AJV_BASE + value : value);
}

/**
 * Holds every route JSON Schema by `$id` and compiles validators once: one ajv for bodies (no
 * coercion), one for query strings and path params (types coerced from strings) and one for
 * answers (nothing changed: no defaults, no coercion). Schemas may name shared schemas by `$id`
 * (`schemaRef`); those are registered with them. Validators are compiled at boot, or with `lazy`
 * on their first use (a process that boots many kernels — the test suite — pays only for the
 * routes it calls; an unknown `$id` is refused at boot either way).
 */
export class SchemaRegistry {
  constructor(private readonly options: { lazy?: boolean } = {}) {}

  private readonly bodyAjv: Ajv = createAjv();
  private readonly stringAjv: Ajv = createAjv({ coerceTypes: true });
  private readonly responseAjv: Ajv = createAjv({ useDefaults: false });
  private readonly schemas = new Map<string, object>();

  /** Adds a schema; it must carry a unique `$id`. @throws Error on a missing or duplicate `$id`. */
  add(schema: { $id?: string } & object): void {
    const id = schema.$id;
    if (!id) throw new Error('route schema without $id');
    if (this.schemas.has(id)) throw new Error(`duplicate schema $id ${id}`);
    this.schemas.set(id, schema);
    const absolute = forAjv(schema);
    this.bodyAjv.addSchema(absolute);
    this.stringAjv.addSchema(structuredClone(absolute));
    this.responseAjv.addSchema(structuredClone(absolute));
    for (const ref of externalRefs(schema)) {
      const target = sharedSchema(ref);
      if (target && this.schemas.get(ref) !== target) this.add(target);
    }
  }

  /**
   * The `$id` of a route's schema reference, registering a {@link RouteSchema} object on first use.
   * @throws Error when another schema object already holds the same `$id`.
   */
  use(ref: SchemaRef): string {
    if (typeof ref === 'string') return ref;
    if (this.schemas.get(ref.$id) !== ref) this.add(ref);
    return ref.$id;
  }

  /** Every schema, for OpenAPI `components.schemas`. */
  all(): Map<string, object> {
    return this.schemas;
  }

  /**
   * Returns a function that validates (and, for strings, coerces) a value or throws 400
   * `VALIDATION_FAILED` with `field`. @throws Error at boot when `$id` is unknown.
   */
  validator(id: string, kind: 'body' | 'query' | 'params'): (value: unknown) => void {
    const fn = this.compiled(kind === 'body' ? this.bodyAjv : this.stringAjv, id);
    return (value) => {
      if (!fn(value)) {
        const { field, message } = describeAjvError(fn.errors, kind);
        throw validationFailed(message, field);
      }
    };
  }

  /**
   * Returns a function that checks an answer body against a schema without changing it and
   * describes the first mismatch (`null` when it matches). @throws Error at boot when `$id` is unknown.
   */
  responseValidator(id: string): (value: unknown) => string | null {
    const fn = this.compiled(this.responseAjv, id);
    return (value) => (fn(value) ? null : (fn.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`).join('; '));
  }

  /** The validator of `id` in `ajv`: compiled now, or on its first call when lazy. @throws Error when `$id` is unknown. */
  private compiled(ajv: Ajv, id: string): ValidateFunction {
    if (!this.schemas.has(id)) throw new Error(`unknown schema $id ${id}`);
    const compile = () => ajv.getSchema(AJV_BASE + id)!;
    if (!this.options.lazy) return compile();
    let fn: ValidateFunction | undefined;
    const validate = ((value: unknown) => {
      fn ??= compile();
      const ok = fn(value);
      validate.errors = fn.errors;
      return ok;
    }) as ValidateFunction;
    return validate;
  }
}

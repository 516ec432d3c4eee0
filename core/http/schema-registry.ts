import type { Ajv, ValidateFunction } from 'ajv';
import { createAjv, describeAjvError } from '../validation.ts';
import { validationFailed } from '../errors.ts';
import type { RouteSchema, SchemaRef } from './route.ts';

/**
 * Holds every route JSON Schema by `$id` and compiles validators once at boot: one ajv for bodies
 * (no coercion) and one for query strings and path params (types coerced from strings).
 */
export class SchemaRegistry {
  private readonly bodyAjv: Ajv = createAjv();
  private readonly stringAjv: Ajv = createAjv({ coerceTypes: true });
  private readonly schemas = new Map<string, object>();

  /** Adds a schema; it must carry a unique `$id`. @throws Error on a missing or duplicate `$id`. */
  add(schema: { $id?: string } & object): void {
    const id = schema.$id;
    if (!id) throw new Error('route schema without $id');
    if (this.schemas.has(id)) throw new Error(`duplicate schema $id ${id}`);
    this.schemas.set(id, schema);
    this.bodyAjv.addSchema(schema);
    this.stringAjv.addSchema(structuredClone(schema));
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
    const ajv = kind === 'body' ? this.bodyAjv : this.stringAjv;
    const fn: ValidateFunction | undefined = ajv.getSchema(id);
    if (!fn) throw new Error(`unknown schema $id ${id}`);
    return (value) => {
      if (!fn(value)) {
        const { field, message } = describeAjvError(fn.errors, kind);
        throw validationFailed(message, field);
      }
    };
  }
}

import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsImport from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsImport as unknown as { default?: typeof addFormatsImport }).default ??
  addFormatsImport) as unknown as (ajv: Ajv) => Ajv;

/**
 * Creates the kernel's ajv instance: strict mode, formats, first error only (Fastify's habit).
 * @param options extra ajv options (e.g. `coerceTypes` for query strings).
 */
export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: false, useDefaults: true, ...options });
  addFormats(ajv);
  return ajv;
}

/** One-line description of the first ajv error, naming the field: `"slug" must match pattern …`. */
export function describeAjvError(errors: ErrorObject[] | null | undefined, root = 'body'): { field: string; message: string } {
  const e = errors?.[0];
  if (!e) return { field: root, message: `${root} is invalid` };
  let field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
  if (e.keyword === 'required') field = [field, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    field = [field, extra].filter(Boolean).join('.');
    return { field, message: `${field} is not an accepted field` };
  }
  const name = field || root;
  if (e.keyword === 'required') return { field: name, message: `${name} is required` };
  return { field: name, message: `${name} ${e.message ?? 'is invalid'}` };
}

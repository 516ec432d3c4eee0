import { schemaId, type RouteDef } from './route.ts';
import type { SchemaRegistry } from './schema-registry.ts';
import type { AuthScheme } from './auth-scheme.ts';

/** A JSON-Pointer-safe component name for a schema `$id` (`accounts/registration.body` → `accounts.registration.body`). */
export function componentName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '.');
}

/**
 * Generates the OpenAPI 3.1 document from the route table and its JSON Schemas, so the published
 * contract cannot drift from what the server validates. Served at `GET /api/openapi.json`.
 */
export function buildOpenApi(routes: RouteDef[], schemas: SchemaRegistry, info: { version: string; baseUrl: string }, authSchemes: Map<string, AuthScheme> = new Map()): object {
  const components: Record<string, object> = {};
  for (const [id, schema] of schemas.all()) components[componentName(id)] = schema;
  const paths: Record<string, Record<string, object>> = {};
  for (const def of routes) {
    const op: Record<string, unknown> = {
      operationId: `${def.method.toLowerCase()}${def.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: def.summary,
      tags: def.tags,
      security: def.auth === 'public' ? [] : (Array.isArray(def.auth) ? def.auth : [def.auth]).map((s) => ({ [s]: [] })),
      parameters: pathParams(def.path),
      responses: { [String(def.status ?? 200)]: { description: 'Success' }, default: { description: 'Error envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } } },
    };
    if (def.scope) op['x-aerie-scope'] = def.scope;
    if (def.personOnly !== undefined) op['x-aerie-person-only'] = def.personOnly;
    if (def.body) op.requestBody = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentName(schemaId(def.body))}` } } } };
    if (def.query) op['x-aerie-query-schema'] = { $ref: `#/components/schemas/${componentName(schemaId(def.query))}` };
    (paths[def.path] ??= {})[def.method.toLowerCase()] = op;
  }
  const schemesUsed = new Set(routes.flatMap((r) => (r.auth === 'public' ? [] : Array.isArray(r.auth) ? r.auth : [r.auth])));
  return {
    openapi: '3.1.0',
    info: { title: 'Aerie', version: info.version },
    servers: [{ url: info.baseUrl }],
    paths,
    components: {
      schemas: {
        ErrorEnvelope: { type: 'object', required: ['error', 'message'], properties: { error: { type: 'string' }, message: { type: 'string' } } },
        ...components,
      },
      securitySchemes: Object.fromEntries([...schemesUsed].map((s) => [s, authSchemes.get(s)?.openapi ?? { type: 'http', scheme: 'bearer', description: `Aerie auth scheme "${s}"` }])),
    },
  };
}

function pathParams(path: string): object[] {
  return [...path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
}

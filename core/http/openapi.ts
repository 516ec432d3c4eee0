import { responsesOf, responseSchema, schemaId, type ResponseEntry, type RouteDef, type SchemaRef } from './route.ts';
import type { SchemaRegistry } from './schema-registry.ts';
import type { AuthScheme } from './auth-scheme.ts';
import { ERROR_ENVELOPE } from './error-envelope.ts';

/** A JSON-Pointer-safe component name for a schema `$id` (`accounts/registration.body` → `accounts.registration.body`). */
export function componentName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '.');
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords whose value maps names to schemas (the names are data, not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 304: 'Not Modified' };

/**
 * A route schema as OpenAPI 3.1 (JSON Schema 2020-12) publishes it: no `$id` (the component name
 * is its address), `$ref`s to other schemas by `$id` become `#/components/schemas/…`, and OpenAPI
 * 3.0's `nullable: true` becomes a `'null'` member of `type`.
 */
export function publishedSchema(schema: unknown): Json {
  if (Array.isArray(schema)) return schema.map((s) => publishedSchema(s));
  if (!schema || typeof schema !== 'object') return schema as Json;
  const out: JsonObject = {};
  const source = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) {
    if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, publishedSchema(sub)]));
      continue;
    }
    if (key === '$id' || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) out.$ref = `#/components/schemas/${componentName(value)}`;
    else if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') out[key] = value as Json;
    else out[key] = publishedSchema(value);
  }
  if (source.nullable === true) {
    const type = source.type;
    if (typeof type === 'string') out.type = [type, 'null'];
    else if (Array.isArray(type) && !type.includes('null')) out.type = [...(type as string[]), 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

const ref = (id: string): JsonObject => ({ $ref: `#/components/schemas/${componentName(id)}` });

const errorResponse = (description: string): JsonObject => ({ description, content: { 'application/json': { schema: ref(ERROR_ENVELOPE.$id) } } });

/** The schema object of a route's params or query schema, to spread into `parameters`. */
function objectSchema(schemas: SchemaRegistry, sref: SchemaRef | undefined): { properties: Record<string, unknown>; required: string[] } {
  if (!sref) return { properties: {}, required: [] };
  const s = (schemas.all().get(schemaId(sref)) ?? (typeof sref === 'object' ? sref : {})) as { properties?: Record<string, unknown>; required?: string[] };
  return { properties: s.properties ?? {}, required: s.required ?? [] };
}

function parameters(def: RouteDef, schemas: SchemaRegistry): JsonObject[] {
  const params = objectSchema(schemas, def.params);
  const path = [...def.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m): JsonObject => ({
    name: m[1], in: 'path', required: true, schema: params.properties[m[1]] ? publishedSchema(params.properties[m[1]]) : { type: 'string' },
  }));
  const query = objectSchema(schemas, def.query);
  return [...path, ...Object.entries(query.properties).map(([name, schema]): JsonObject => ({
    name, in: 'query', required: query.required.includes(name), schema: publishedSchema(schema),
  }))];
}

function successResponse(status: number, entry: ResponseEntry | undefined): JsonObject {
  const description = (entry && typeof entry === 'object' && 'contentType' in entry && entry.description) || STATUS_TEXT[status] || 'Success';
  if (entry === null || status === 204 || status === 304) return { description };
  const schema = responseSchema(entry);
  const contentType = entry && typeof entry === 'object' && 'contentType' in entry ? entry.contentType : 'application/json';
  if (!schema && !entry) return { description };
  const media: JsonObject = schema ? { schema: ref(schemaId(schema)) } : contentType.startsWith('text/') ? { schema: { type: 'string' } } : {};
  return { description, content: { [contentType]: media } };
}

function operationId(def: RouteDef, taken: Set<string>): string {
  const base = `${def.method.toLowerCase()}${def.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  taken.add(id);
  return id;
}

/** The security requirements of a route: alternatives, one per scheme (with its write-time companions). */
function security(def: RouteDef, authSchemes: Map<string, AuthScheme>): JsonObject[] {
  if (def.auth === 'public') return [];
  const names = Array.isArray(def.auth) ? def.auth : [def.auth as string];
  const write = def.method !== 'GET';
  return names.map((name) => Object.fromEntries([name, ...(write ? Object.keys(authSchemes.get(name)?.openapiOnWrites ?? {}) : [])].map((n) => [n, []])));
}

/**
 * Generates the OpenAPI 3.1 document from the route table and its JSON Schemas, so the published
 * contract cannot drift from what the server validates: path and query `parameters` with their
 * schemas, the JSON `requestBody`, every success answer with its schema (tests check real answers
 * against them), the error envelope for every error, and the auth schemes' Security Scheme Objects.
 * Served at `GET /api/openapi.json`. @see docs/api/openapi.md
 */
export function buildOpenApi(routes: RouteDef[], schemas: SchemaRegistry, info: { version: string; baseUrl: string }, authSchemes: Map<string, AuthScheme> = new Map()): object {
  schemas.use(ERROR_ENVELOPE);
  for (const def of routes) for (const entry of responsesOf(def).values()) {
    const s = responseSchema(entry);
    if (s) schemas.use(s);
  }
  const components: Record<string, Json> = {};
  for (const [id, schema] of schemas.all()) components[componentName(id)] = publishedSchema(schema);
  const paths: Record<string, Record<string, JsonObject>> = {};
  const taken = new Set<string>();
  for (const def of routes) {
    const responses: JsonObject = {};
    const declared = responsesOf(def);
    if (declared.size === 0) declared.set(def.status ?? 200, undefined as unknown as ResponseEntry);
    for (const [status, entry] of declared) responses[String(status)] = successResponse(status, entry);
    if (def.body || def.query || def.params) responses['400'] = errorResponse('Invalid input (`VALIDATION_FAILED`, `INVALID_JSON`, …)');
    if (def.auth !== 'public') responses['401'] = errorResponse('No valid credential (`UNAUTHORIZED`)');
    responses.default = errorResponse('Error envelope');
    const op: JsonObject = {
      operationId: operationId(def, taken),
      ...(def.summary ? { summary: def.summary } : {}),
      tags: def.tags ?? ['other'],
      security: security(def, authSchemes),
      parameters: parameters(def, schemas),
      responses,
    };
    if (def.scope) op['x-aerie-scope'] = def.scope;
    if (def.personOnly !== undefined) op['x-aerie-person-only'] = def.personOnly;
    // Which routes an organization session reaches: every `org: true` route, and these.
    if (def.org || def.orgSessions) op['x-aerie-org-sessions'] = true;
    if (def.body) op.requestBody = { required: true, content: { 'application/json': { schema: ref(schemaId(def.body)) } } };
    if (def.upload) {
      const file = { type: 'string', format: 'binary', maxLength: def.upload.maxBytes };
      op.requestBody = { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: [def.upload.field], properties: { [def.upload.field]: file } } } } };
    }
    if (def.rawBody) op.requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary', maxLength: def.rawBody.maxBytes } } } };
    (paths[def.path] ??= {})[def.method.toLowerCase()] = op;
  }
  const securitySchemes: Record<string, Json> = {};
  for (const name of new Set(routes.flatMap((r) => (r.auth === 'public' ? [] : Array.isArray(r.auth) ? r.auth : [r.auth as string])))) {
    const scheme = authSchemes.get(name);
    securitySchemes[name] = (scheme?.openapi ?? { type: 'http', scheme: 'bearer', description: `Aerie auth scheme "${name}"` }) as Json;
    for (const [companion, object] of Object.entries(scheme?.openapiOnWrites ?? {})) securitySchemes[companion] = object as Json;
  }
  const tags = [...new Set(routes.flatMap((r) => r.tags ?? ['other']))].sort().map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: { title: 'Aerie', version: info.version, description: 'Multi-tenant identity, access and governance service. Errors use the envelope `ErrorEnvelope` (docs/api/errors.md).' },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: info.baseUrl }],
    tags,
    paths,
    components: { schemas: components, securitySchemes },
  };
}

import { ScimFilterError, type AttrPath, type CompValue, type CompareOp, type FilterNode } from './ast.ts';
import type { Attribute, ResourceSchema, ScalarType } from './resource-schema.ts';

/** A parameterised SQL condition: `sql` with `?` placeholders for `bindings` (knex `whereRaw`). */
export interface SqlCondition {
  sql: string;
  bindings: unknown[];
}

/**
 * Compiles a parsed SCIM filter into one parameterised SQL condition over `schema`'s expressions.
 * Strings compare case-insensitively unless the attribute is `caseExact`; `co`, `sw`, `ew` become
 * `LIKE` with the value's `%`, `_` and `\` escaped; `gt ge lt le` order strings, numbers and
 * date-times (years 0001–9999); booleans take `eq`/`ne` only. Comparisons stay plain
 * (`lower(email) = ?`) so indexes serve them, and `eq` on an attribute with an `eqSql` uses that
 * index-friendly form; `not (…)` counts an unknown (SQL NULL) inner result as false, so it is the exact
 * complement (an absent attribute is "not equal"). A value filter
 * (`emails[type eq "work"].value eq "x"`) tests one and the same array element.
 * @throws ScimFilterError (`invalidFilter`) for an unknown attribute, an operator the type does not
 *   have, or a value of the wrong type.
 */
export function compileFilter(node: FilterNode, schema: ResourceSchema): SqlCondition {
  const bindings: unknown[] = [];
  const sql = compileNode(node, schema, bindings);
  return { sql, bindings };
}

function compileNode(node: FilterNode, schema: ResourceSchema, b: unknown[]): string {
  switch (node.kind) {
    case 'and':
    case 'or':
      return `(${compileNode(node.left, schema, b)} ${node.kind.toUpperCase()} ${compileNode(node.right, schema, b)})`;
    case 'not':
      return `(NOT COALESCE(${compileNode(node.filter, schema, b)}, false))`;
    case 'present':
    case 'compare': {
      const target = resolve(node.path, schema);
      if (target.kind === 'multi') {
        // `emails co "x"` / `emails.value eq "x"` / `emails pr`: some element.
        if (node.kind === 'present' && !node.path.sub) return anyElement(target.attr, 'true');
        const sub = node.path.sub ?? 'value';
        const element = elementExpr(target.attr, sub, node.path.attr);
        const test = node.kind === 'present' ? present(element.sql, element.type) : compare(element.sql, element.type, element.caseExact, node.op, node.value, b);
        return anyElement(target.attr, test);
      }
      if (node.kind === 'present') return present(target.sql, target.type);
      if (node.op === 'eq' && target.eqSql && !target.caseExact && typeof node.value === 'string') {
        const v = node.value.toLowerCase();
        b.push(...Array<string>(target.eqSql.split('?').length - 1).fill(v));
        return `(${target.eqSql})`;
      }
      return compare(target.sql, target.type, target.caseExact, node.op, node.value, b);
    }
    case 'valuePath': {
      const target = resolve(node.path, schema);
      if (target.kind !== 'multi') throw new ScimFilterError(`${node.path.attr} is not multi-valued: a value filter does not apply.`);
      const inner = compileElementFilter(node.filter, target.attr, node.path.attr, b);
      let then = '';
      if (node.then) {
        const element = elementExpr(target.attr, node.then.sub, node.path.attr);
        then = ` AND ${node.then.op === 'pr' ? present(element.sql, element.type) : compare(element.sql, element.type, element.caseExact, node.then.op, node.then.value ?? null, b)}`;
      }
      return anyElement(target.attr, `${inner}${then}`);
    }
  }
}

/** Inside `emails[…]`: paths name the element's members (`type`, `value`, `primary`). */
function compileElementFilter(node: FilterNode, attr: Extract<Attribute, { type: 'multi' }>, attrName: string, b: unknown[]): string {
  switch (node.kind) {
    case 'and':
    case 'or':
      return `(${compileElementFilter(node.left, attr, attrName, b)} ${node.kind.toUpperCase()} ${compileElementFilter(node.right, attr, attrName, b)})`;
    case 'not':
      return `(NOT COALESCE(${compileElementFilter(node.filter, attr, attrName, b)}, false))`;
    case 'present':
    case 'compare': {
      if (node.path.sub || node.path.urn) throw new ScimFilterError(`Inside a value filter, name the element's members only (found ${node.path.attr}.${node.path.sub ?? ''}).`);
      const element = elementExpr(attr, node.path.attr, attrName);
      return node.kind === 'present' ? present(element.sql, element.type) : compare(element.sql, element.type, element.caseExact, node.op, node.value, b);
    }
    case 'valuePath':
      throw new ScimFilterError('A value filter cannot hold another.');
  }
}

/** Some element of `attr` passes `test` (a condition over {@link elementExpr}s). */
function anyElement(attr: Extract<Attribute, { type: 'multi' }>, test: string): string {
  if (attr.rows) return `EXISTS (${attr.rows.sql} AND (${test}))`;
  return `EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(${attr.elements}, '[]'::jsonb)) AS e(v) WHERE ${test})`;
}

function elementExpr(attr: Extract<Attribute, { type: 'multi' }>, name: string, attrName: string): { sql: string; type: ScalarType; caseExact: boolean } {
  const key = Object.keys(attr.sub).find((k) => k.toLowerCase() === name.toLowerCase());
  if (!key) throw new ScimFilterError(`Unknown attribute ${attrName}.${name}.`);
  const def = attr.sub[key]!;
  if (attr.rows) return { sql: attr.rows.columns[key]!, type: def.type, caseExact: def.caseExact ?? false };
  const raw = `(e.v->>'${key}')`;
  const sql = def.type === 'boolean' ? `${raw}::boolean` : def.type === 'integer' || def.type === 'decimal' ? `${raw}::numeric` : def.type === 'dateTime' ? `${raw}::timestamptz` : raw;
  return { sql, type: def.type, caseExact: def.caseExact ?? false };
}

type Resolved = { kind: 'scalar'; sql: string; type: ScalarType; caseExact: boolean; eqSql?: string } | { kind: 'multi'; attr: Extract<Attribute, { type: 'multi' }> };

function resolve(path: AttrPath, schema: ResourceSchema): Resolved & { sql: string; type: ScalarType; caseExact: boolean; eqSql?: string } {
  let attributes = schema.attributes;
  if (path.urn && path.urn.toLowerCase() !== schema.coreUrn.toLowerCase()) {
    const ext = Object.entries(schema.extensions ?? {}).find(([urn]) => urn.toLowerCase() === path.urn!.toLowerCase());
    if (!ext) throw new ScimFilterError(`Unknown schema ${path.urn}.`);
    attributes = ext[1];
  }
  const key = Object.keys(attributes).find((k) => k.toLowerCase() === path.attr.toLowerCase());
  if (!key) throw new ScimFilterError(`Unknown attribute ${path.attr}.`);
  const attr = attributes[key]!;
  if (attr.type === 'multi') return { kind: 'multi', attr, sql: '', type: 'string', caseExact: false };
  if (attr.type === 'complex') {
    if (!path.sub) throw new ScimFilterError(`${key} is complex: name a sub-attribute (${key}.…).`);
    const subKey = Object.keys(attr.sub).find((k) => k.toLowerCase() === path.sub!.toLowerCase());
    if (!subKey) throw new ScimFilterError(`Unknown attribute ${key}.${path.sub}.`);
    const sub = attr.sub[subKey]!;
    return { kind: 'scalar', sql: sub.sql, type: sub.type, caseExact: sub.caseExact ?? false, eqSql: sub.eqSql };
  }
  if (path.sub) throw new ScimFilterError(`${key} has no sub-attribute ${path.sub}.`);
  return { kind: 'scalar', sql: attr.sql, type: attr.type, caseExact: attr.caseExact ?? false, eqSql: attr.eqSql };
}

function present(expr: string, type: ScalarType): string {
  return type === 'string' || type === 'reference' ? `(${expr} IS NOT NULL AND ${expr} <> '')` : `(${expr} IS NOT NULL)`;
}

const ORDER: Record<string, string> = { gt: '>', ge: '>=', lt: '<', le: '<=' };

function compare(expr: string, type: ScalarType, caseExact: boolean, op: CompareOp, value: CompValue, b: unknown[]): string {
  if (value === null) {
    if (op === 'eq') return `(${expr} IS NULL)`;
    if (op === 'ne') return `(${expr} IS NOT NULL)`;
    throw new ScimFilterError(`"${op} null" is not a comparison.`);
  }
  switch (type) {
    case 'string':
    case 'reference': {
      if (typeof value !== 'string') throw new ScimFilterError(`Compare a string attribute with a string, not ${JSON.stringify(value)}.`);
      const left = caseExact ? expr : `lower(${expr})`;
      const v = caseExact ? value : value.toLowerCase();
      if (op === 'eq' || op === 'ne' || op in ORDER) {
        b.push(v);
        if (op === 'ne') return `(${expr} IS NULL OR ${left} <> ?)`;
        return `(${left} ${op === 'eq' ? '=' : ORDER[op]} ?)`;
      }
      const escaped = v.replace(/[\\%_]/g, (c) => `\\${c}`);
      b.push(op === 'co' ? `%${escaped}%` : op === 'sw' ? `${escaped}%` : `%${escaped}`);
      return `(${left} LIKE ? ESCAPE '\\')`;
    }
    case 'boolean': {
      const v = typeof value === 'boolean' ? value : undefined;
      if (v === undefined) throw new ScimFilterError(`Compare a boolean attribute with true or false, not ${JSON.stringify(value)}.`);
      if (op !== 'eq' && op !== 'ne') throw new ScimFilterError(`A boolean attribute takes eq or ne, not ${op}.`);
      b.push(v);
      return op === 'eq' ? `(${expr} = ?)` : `((${expr} = ?) IS NOT TRUE)`;
    }
    case 'dateTime': {
      const iso = typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : undefined;
      if (!iso) throw new ScimFilterError(`Compare a date-time attribute with an ISO 8601 string, not ${JSON.stringify(value)}.`);
      // PostgreSQL has no year 0 and reads no signed six-digit years: the years 0001 to 9999 only.
      if (!/^\d{4}-/.test(iso) || iso.startsWith('0000')) throw new ScimFilterError(`A date-time in a filter lies between the years 0001 and 9999, not ${JSON.stringify(value)}.`);
      return ordered(expr, op, iso, '::timestamptz', b);
    }
    case 'integer':
    case 'decimal': {
      if (typeof value !== 'number') throw new ScimFilterError(`Compare a number attribute with a number, not ${JSON.stringify(value)}.`);
      return ordered(expr, op, value, '::numeric', b);
    }
  }
}

function ordered(expr: string, op: CompareOp, value: unknown, cast: string, b: unknown[]): string {
  if (op === 'co' || op === 'sw' || op === 'ew') throw new ScimFilterError(`${op} applies to strings only.`);
  b.push(value);
  if (op === 'ne') return `((${expr} = ?${cast}) IS NOT TRUE)`;
  return `(${expr} ${op === 'eq' ? '=' : ORDER[op]} ?${cast})`;
}

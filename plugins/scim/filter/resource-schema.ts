/**
 * How a SCIM resource's attributes map to SQL, for the filter compiler. Attribute names are matched
 * case-insensitively (RFC 7643 §2.1). SQL expressions come from Aerie's code, never from a request.
 */
export type ScalarType = 'string' | 'boolean' | 'dateTime' | 'integer' | 'decimal' | 'reference';

/** A single-valued simple attribute: its SQL expression, type, and whether strings compare case-exactly. */
export interface ScalarAttribute {
  type: ScalarType;
  sql: string;
  caseExact?: boolean;
  /**
   * For a string that is not `caseExact`: a condition equivalent to `lower(sql) = ?` that indexes
   * serve (an `IN (…)` over indexed lookups), used for `eq`; every `?` in it is bound to the
   * lower-cased value.
   */
  eqSql?: string;
}

/** A single-valued complex attribute (`name`): its sub-attributes. */
export interface ComplexAttribute {
  type: 'complex';
  sub: Record<string, ScalarAttribute>;
}

/**
 * A multi-valued complex attribute (`emails`, `members`) and the element members' types, its
 * elements given one of two ways: `elements`, an SQL expression yielding a `jsonb` array of objects
 * (small lists built on the fly), or `rows`, a correlated `SELECT 1 FROM … WHERE …` over the rows
 * that are the elements with each member's SQL column — tests then become `EXISTS (rows AND test)`,
 * which indexes serve (large lists such as a Group's members). A bare comparison on it
 * (`emails co "x"`) tests `value`.
 */
export interface MultiValuedAttribute {
  type: 'multi';
  elements?: string;
  rows?: { sql: string; columns: Record<string, string> };
  sub: Record<string, { type: ScalarType; caseExact?: boolean }>;
}

export type Attribute = ScalarAttribute | ComplexAttribute | MultiValuedAttribute;

/** A resource type's schema as the compiler sees it: the core schema URN, its attributes, extensions by URN. */
export interface ResourceSchema {
  coreUrn: string;
  attributes: Record<string, Attribute>;
  extensions?: Record<string, Record<string, Attribute>>;
}

/**
 * The syntax tree of a SCIM filter (RFC 7644 §3.4.2.2). Attribute paths are kept as written
 * (schema URN, attribute, sub-attribute); resolving them against a resource's schema is the
 * compiler's job.
 */
export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/** `urn:…:User:name.givenName` → `{ urn: 'urn:…:User', attr: 'name', sub: 'givenName' }`. */
export interface AttrPath {
  urn?: string;
  attr: string;
  sub?: string;
}

export type CompValue = string | number | boolean | null;

export type FilterNode =
  | { kind: 'present'; path: AttrPath }
  | { kind: 'compare'; path: AttrPath; op: CompareOp; value: CompValue }
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; filter: FilterNode }
  /**
   * `emails[type eq "work"]`, optionally followed by `.value eq "x"` (the form identity providers
   * send): an element of the multi-valued `path` matching `filter` and, when `then` is given, that
   * same element's sub-attribute test.
   */
  | { kind: 'valuePath'; path: AttrPath; filter: FilterNode; then?: { sub: string; op: CompareOp | 'pr'; value?: CompValue } };

/** A filter the grammar or Aerie's limits refuse: SCIM `400` with `scimType` `invalidFilter`. */
export class ScimFilterError extends Error {
  readonly scimType = 'invalidFilter';
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'ScimFilterError';
  }
}

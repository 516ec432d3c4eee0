/**
 * Permission templates and their compilation into the scopes an assignment snapshots.
 *
 * A template is a scope expression whose constraint values may be `{variable}` placeholders
 * (`org.project.read:project={project}`). Compiling fills each placeholder from the assignment's
 * `Variables`; a placeholder without a value becomes `*`, the unfilled value that matches no id,
 * so such an assignment grants nothing through that template.
 *
 * @see docs/api/roles.md (guest compile table)
 */
import { formatScope, parseScope, UNFILLED_VALUE, type ScopeExpression } from '../../core/index.ts';

const PLACEHOLDER = /^\{([a-z][a-z0-9_]{0,39})\}$/;

/** Variable values: what a scope value may contain, minus the unfilled `*`. */
export const VARIABLE_VALUE = /^[^,:\s*\u0000-\u001f\u007f]{1,200}$/;

/** A parsed template: canonical text, its base and the variables it uses. */
export interface ParsedTemplate {
  readonly scope: string;
  readonly expr: ScopeExpression;
  readonly variables: readonly string[];
}

/**
 * Parses a template. @throws ScopeSyntaxError (400 `INVALID_SCOPE`) for malformed text.
 * @example parseTemplate('org.project.read:project={project}').variables // ['project']
 */
export function parseTemplate(text: string): ParsedTemplate {
  const expr = parseScope(text);
  const variables = expr.constraints.map((c) => PLACEHOLDER.exec(c.value)?.[1]).filter((v): v is string => v !== undefined);
  return { scope: formatScope(expr), expr, variables: [...new Set(variables)] };
}

/** The variables a set of templates uses, sorted. */
export function variablesOf(templates: readonly string[]): string[] {
  return [...new Set(templates.flatMap((t) => parseTemplate(t).variables))].sort();
}

/**
 * Compiles templates with `variables`: placeholders are filled, unfilled ones become `*`.
 * @returns canonical scope texts, deduplicated, in template order
 * @example compileTemplates(['org.project.read:project={project}'], {}) // ['org.project.read:project=*']
 */
export function compileTemplates(templates: readonly string[], variables: Readonly<Record<string, string>>): string[] {
  const out = new Set<string>();
  for (const text of templates) {
    const { expr } = parseTemplate(text);
    const constraints = expr.constraints.map((c) => {
      const name = PLACEHOLDER.exec(c.value)?.[1];
      return name === undefined ? c : { ...c, value: variables[name] ?? UNFILLED_VALUE };
    });
    out.add(formatScope({ ...expr, constraints }));
  }
  return [...out];
}

/** A template with its placeholder constraints dropped: what a caller must hold to grant it. */
export function templateCeiling(text: string): string {
  const { expr } = parseTemplate(text);
  return formatScope({ ...expr, constraints: expr.constraints.filter((c) => !PLACEHOLDER.test(c.value)) });
}

/** Canonical text of a variables map (sorted keys), used to tell assignments apart. */
export function variablesKey(variables: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(variables).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

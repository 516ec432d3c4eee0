import { ScimFilterError, type FilterNode } from './ast.ts';

/** The sub-attributes a value filter may name on an element, by lower-case name. */
export type ElementSubs = Record<string, { type: 'string'; caseExact: boolean } | { type: 'boolean' }>;

/**
 * Evaluates a value filter (the `…` of `members[…]` or `emails[…]`, RFC 7644 §3.4.2.2) on one
 * element held in memory, for PATCH paths: strings compare case-insensitively unless the
 * sub-attribute is `caseExact`, booleans take `eq` and `ne`.
 * @param attr - the multi-valued attribute, for messages (`members`)
 * @param subs - the sub-attributes the filter may name
 * @throws ScimFilterError for a sub-attribute not in `subs`, a nested value filter or a value of the wrong type
 * @example matchesElement(parseFilter('type eq "work"'), { value: 'a@b.c', type: 'work' }, 'emails', subs) // true
 */
export function matchesElement(node: FilterNode, element: Record<string, string | boolean | undefined>, attr: string, subs: ElementSubs): boolean {
  switch (node.kind) {
    case 'and': return matchesElement(node.left, element, attr, subs) && matchesElement(node.right, element, attr, subs);
    case 'or': return matchesElement(node.left, element, attr, subs) || matchesElement(node.right, element, attr, subs);
    case 'not': return !matchesElement(node.filter, element, attr, subs);
    case 'valuePath': throw new ScimFilterError('A value filter cannot hold another.');
    case 'present':
    case 'compare': {
      const name = node.path.attr.toLowerCase();
      const sub = subs[name];
      if (node.path.sub || node.path.urn || !sub) throw new ScimFilterError(`${attr}[…] filters name ${Object.keys(subs).join(' or ')}, not ${node.path.attr}.`);
      const actual = element[name];
      if (node.kind === 'present') return actual !== undefined && actual !== '';
      if (sub.type === 'boolean') {
        if (typeof node.value !== 'boolean' || (node.op !== 'eq' && node.op !== 'ne')) throw new ScimFilterError(`Compare ${name} with eq or ne and true or false.`);
        return (actual === node.value) === (node.op === 'eq');
      }
      if (typeof node.value !== 'string') throw new ScimFilterError(`Compare ${name} with a string.`);
      const fold = (s: string) => (sub.caseExact ? s : s.toLowerCase());
      const a = typeof actual === 'string' ? fold(actual) : undefined;
      const v = fold(node.value);
      if (a === undefined) return node.op === 'ne';
      switch (node.op) {
        case 'eq': return a === v;
        case 'ne': return a !== v;
        case 'co': return a.includes(v);
        case 'sw': return a.startsWith(v);
        case 'ew': return a.endsWith(v);
        case 'gt': return a > v;
        case 'ge': return a >= v;
        case 'lt': return a < v;
        case 'le': return a <= v;
      }
    }
  }
}

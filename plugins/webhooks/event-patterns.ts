/**
 * Webhook event patterns: `*` matches every event; `prefix.*` matches names under that prefix with
 * the dot boundary (`org.member.*` matches `org.member.invited`, not `org.membership.x` nor
 * `org.member`); any other pattern is an exact name, compared case-insensitively. A list that is
 * empty or holds a malformed pattern delivers nothing.
 * @see docs/api/webhooks.md "Event patterns"
 */

const SEGMENT = '[A-Za-z0-9_-]+';
const NAME = new RegExp(`^${SEGMENT}(\\.${SEGMENT})*$`);
const PREFIX = new RegExp(`^${SEGMENT}(\\.${SEGMENT})*\\.\\*$`);

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 200;
/** Most patterns on one endpoint. */
export const MAX_PATTERNS = 50;

/** Whether `pattern` is `*`, `prefix.*` or an event name. */
export function isValidPattern(pattern: unknown): pattern is string {
  return typeof pattern === 'string' && pattern.length <= MAX_PATTERN_LENGTH && (pattern === '*' || NAME.test(pattern) || PREFIX.test(pattern));
}

/** Whether the list is deliverable: non-empty, every pattern valid. */
export function isValidPatternList(patterns: unknown): patterns is string[] {
  return Array.isArray(patterns) && patterns.length > 0 && patterns.length <= MAX_PATTERNS && patterns.every(isValidPattern);
}

/** Whether `eventType` is selected by `patterns` (an empty or malformed list selects nothing). */
export function matchesAny(patterns: unknown, eventType: string): boolean {
  if (!isValidPatternList(patterns)) return false;
  const name = eventType.toLowerCase();
  return patterns.some((p) => {
    if (p === '*') return true;
    const lower = p.toLowerCase();
    if (lower.endsWith('.*')) return name.startsWith(lower.slice(0, -1)) && name.length > lower.length - 1;
    return name === lower;
  });
}

import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsImport from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsImport as unknown as { default?: typeof addFormatsImport }).default ??
  addFormatsImport) as unknown as (ajv: Ajv) => Ajv;

/**
 * Whether `value` is a UUID in canonical text form (any version, either case). Ids in paths are
 * checked with it before they reach a \`uuid\` column, so a malformed id is "not found", not a 500.
 */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

// U+0000, and UTF-16 code units that are not half of a pair (not Unicode text).
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// Most text holds neither NUL nor any surrogate: one plain character-class test clears it.
const SUSPECT_TEXT = /[\u0000\ud800-\udfff]/;

/**
 * Whether `value` holds U+0000 (PostgreSQL text and jsonb refuse it) or a UTF-16 code unit that is
 * not half of a surrogate pair (not Unicode text; RFC 8785 refuses it).
 * @example hasBadText('a\u0000') // true; hasBadText('🦅') // false; hasBadText('\ud800') // true
 */
export function hasBadText(value: string): boolean {
  return SUSPECT_TEXT.test(value) && BAD_TEXT.test(value);
}

/**
 * Characters a name may not hold: C0 and C1 controls (CR, LF, TAB, ESC, …), DEL, the Unicode line
 * and paragraph separators, and the bidirectional marks, embeddings, overrides and isolates
 * (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) that let a name display as something else —
 * in an Aerie-branded mail, a page or a log line.
 */
export const UNSAFE_NAME_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * Characters that show as nothing (or as a blank) and so let "Ad\u200Bmin" pass for "Admin": the
 * default-ignorable code points and format characters (zero-width spaces and joiners, U+180E, word
 * joiners, variation selectors, tag characters U+E0000–U+E007F, soft hyphen, …) and the blank
 * fillers U+115F, U+1160, U+3164, U+FFA0 and U+2800.
 */
const INVISIBLE_NAME_CHARS = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u115f\u1160\u2800\u3164\uffa0]/u;

/** Scripts whose spelling needs zero-width (non-)joiners between letters (RFC 5892 CONTEXTJ, simplified). */
const JOINING_SCRIPTS = ['Arabic', 'Syriac', 'Nko', 'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala']
  .map((script) => `\\p{Script=${script}}`).join('');

/**
 * The invisible characters that writing needs, which a name may keep: a zero-width joiner between
 * two pictographs (👩‍💻, after an optional skin tone and VS16), a variation selector after a
 * pictograph or keycap base (❤️, 1️⃣), and a zero-width (non-)joiner after a letter of a script
 * that spells with it (Persian نامه‌ها, Indic conjuncts), before another letter.
 */
const WRITING_JOINERS = new RegExp([
  '(?<=\\p{Extended_Pictographic}[\\u{1F3FB}-\\u{1F3FF}]?\\uFE0F?)\\u200D(?=\\p{Extended_Pictographic})',
  '(?<=[\\p{Extended_Pictographic}#*0-9])[\\uFE0E\\uFE0F]',
  `(?<=[${JOINING_SCRIPTS}]\\p{M}*)[\\u200C\\u200D](?=\\p{L})`,
].join('|'), 'gu');

/**
 * A name shown to people (organization, role, key, display name, title): no character of
 * {@link UNSAFE_NAME_CHARS}, and no invisible one (default-ignorable, format, blank fillers) but
 * those writing needs (emoji sequences, joiners of scripts that spell with them). The JSON Schema format `display-name` checks it on every route.
 * @example isDisplayName('Acme Ltd') // true; isDisplayName('Acme\u202Edtl') // false; isDisplayName('Ad\u200Bmin') // false
 */
export function isDisplayName(value: string): boolean {
  if (UNSAFE_NAME_CHARS.test(value)) return false;
  return !INVISIBLE_NAME_CHARS.test(value) || !INVISIBLE_NAME_CHARS.test(value.replace(WRITING_JOINERS, ''));
}

/**
 * A name as plain text for mail and pages: each unsafe or invisible character (stored before names
 * were checked) becomes U+FFFD, so it can neither break a line, reorder what follows nor hide.
 */
export function plainName(value: string): string {
  return value.replace(new RegExp(UNSAFE_NAME_CHARS.source, 'g'), '\ufffd')
    .replace(new RegExp(`${WRITING_JOINERS.source}|(${INVISIBLE_NAME_CHARS.source})`, 'gu'), (match, invisible?: string) => (invisible ? '\ufffd' : match));
}

/**
 * Creates the kernel's ajv instance: strict mode, formats (plus `display-name`), first error only (Fastify's habit).
 * @param options extra ajv options (e.g. `coerceTypes` for query strings).
 */
export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: false, useDefaults: true, ...options });
  addFormats(ajv);
  ajv.addFormat('display-name', { type: 'string', validate: isDisplayName });
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

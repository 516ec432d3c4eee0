/** Longest stored file name, in characters. */
const MAX_NAME = 255;

// Path separators, C0/C1 controls and DEL, and the Unicode format characters that reorder or hide
// text (bidi embeddings, overrides and isolates, zero-width marks, BOM).
const REMOVED = /[/\\\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu;

/**
 * The name a file is stored and answered under: path separators, control characters and bidi or
 * invisible format characters removed, non-ASCII letters kept, NFC-normalised, trimmed of spaces and
 * of leading dots (`../../etc/passwd` becomes `etcpasswd`), at most 255 characters. An empty result is `file`.
 */
export function sanitizeFileName(raw: string): string {
  const cleaned = raw.normalize('NFC').replace(REMOVED, '').replace(/^[\s.]+/u, '').trim();
  return [...cleaned].slice(0, MAX_NAME).join('') || 'file';
}

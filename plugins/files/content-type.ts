/**
 * Types a browser may show in place (a share link's viewer): images, PDF, audio and video that
 * `file-type` recognises from their bytes. HTML, SVG and everything else are only ever downloaded.
 */
const INLINE = new Set([
  'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp',
  'application/pdf',
  'audio/mpeg', 'audio/ogg', 'audio/wav', 'audio/x-wav', 'audio/flac', 'audio/aac', 'audio/mp4', 'audio/webm',
  'video/mp4', 'video/webm', 'video/ogg', 'video/quicktime',
]);

const TOKEN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/**
 * The content type a file is stored with: the one read from its bytes when `file-type` recognises
 * them; otherwise the declared type, unless that claims a viewable type the bytes do not bear out
 * (an HTML page sent as `image/png`) or is not a plain `type/subtype` — then `application/octet-stream`.
 */
export function storedContentType(sniffed: string | undefined, declared: string): string {
  if (sniffed) return sniffed;
  const type = declared.toLowerCase().split(';')[0]!.trim();
  return TOKEN.test(type) && !INLINE.has(type) ? type : 'application/octet-stream';
}

/** true when a share link may show a file of this stored type in place. */
export function isInlineViewable(contentType: string): boolean {
  return INLINE.has(contentType);
}

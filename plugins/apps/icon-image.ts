/**
 * What an app-group icon may be, read from its bytes (never a name or a declared type): PNG, JPEG
 * or WebP as sent, or SVG — XML text with an `<svg>` root — cleaned of scripts, event handlers,
 * foreign objects and links that leave the document.
 * @see docs/api/apps.md "Icon"
 */
import type { WindowLike } from 'dompurify';
import { fileTypeFromBuffer } from 'file-type';
import type { JSDOM } from 'jsdom';

/** Largest icon accepted: 2 MiB. */
export const ICON_MAX_BYTES = 2 * 1024 * 1024;

const RASTER = new Set(['image/png', 'image/jpeg', 'image/webp']);
const SVG_NS = 'http://www.w3.org/2000/svg';

/** An accepted icon: its detected media type and the bytes to store. */
export interface IconImage {
  contentType: string;
  bytes: Buffer;
}

/** The icon in `bytes`, or `undefined` when they are none of the accepted types. */
export async function readIcon(bytes: Buffer): Promise<IconImage | undefined> {
  const detected = await fileTypeFromBuffer(bytes);
  if (detected && RASTER.has(detected.mime)) return { contentType: detected.mime, bytes };
  // file-type does not know SVG; it names XML with a declaration `application/xml`.
  if (detected && detected.mime !== 'application/xml') return undefined;
  const svg = await cleanSvg(bytes);
  return svg && { contentType: 'image/svg+xml', bytes: svg };
}

type Purify = ReturnType<typeof import('dompurify').default>;
let sanitizer: Promise<{ window: JSDOM['window']; purify: Purify }> | undefined;

/**
 * One jsdom window and DOMPurify instance, loaded and made on the first SVG (jsdom costs a serving
 * process ~80 MiB of memory, which most never need); links may only point inside the document.
 */
function svgSanitizer() {
  sanitizer ??= makeSanitizer();
  return sanitizer;
}

async function makeSanitizer() {
  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
  const { window } = new JSDOM('');
  const purify = createDOMPurify(window as unknown as WindowLike);
  purify.addHook('afterSanitizeAttributes', (node) => {
    for (const name of ['href', 'xlink:href']) {
      const value = node.getAttribute?.(name);
      if (value !== null && value !== undefined && !value.trim().startsWith('#')) node.removeAttribute(name);
    }
  });
  return { window, purify };
}

/** The cleaned SVG document, or `undefined` when `bytes` are not UTF-8 XML with an `<svg>` root. */
async function cleanSvg(bytes: Buffer): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  const { window, purify } = await svgSanitizer();
  const root = new window.DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  // A parse error gives a <parsererror> root instead.
  if (root.localName !== 'svg' || root.namespaceURI !== SVG_NS) return undefined;
  purify.sanitize(root, { IN_PLACE: true, USE_PROFILES: { svg: true, svgFilters: true }, FORBID_TAGS: ['foreignObject', 'style'] });
  return Buffer.from(new window.XMLSerializer().serializeToString(root), 'utf8');
}

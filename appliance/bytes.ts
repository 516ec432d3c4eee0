/**
 * Byte helpers for the box: hex, UTF-8, base64 and base64url.
 *
 * Written by hand on purpose: the box bundle runs on Espruino and in a bare `vm` context, where
 * neither Node's `Buffer` nor `TextEncoder`/`TextDecoder`/`atob` exist. Every decoder is strict
 * (it throws instead of guessing), because the ticket is verified over the bytes as received.
 */

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Encode bytes as lowercase hex.
 * @param bytes - any bytes
 * @returns two lowercase hex digits per byte
 */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
  return out;
}

/**
 * Decode hex (either case) into bytes.
 * @param hex - an even number of hex digits
 * @throws Error when the length is odd or a character is not a hex digit
 */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error('invalid hex');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

/**
 * Encode a string as UTF-8.
 * @param text - any string; a lone surrogate is encoded as U+FFFD
 */
export function utf8Encode(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return new Uint8Array(out);
}

/**
 * Decode strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
 * @param bytes - UTF-8 bytes
 * @throws Error on any malformed sequence
 */
export function utf8Decode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    let need = 0;
    let cp = 0;
    let min = 0;
    if (b < 0x80) { out += String.fromCharCode(b); i++; continue; }
    if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 31; min = 0x80; }
    else if (b >= 0xe0 && b <= 0xef) { need = 2; cp = b & 15; min = 0x800; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; cp = b & 7; min = 0x10000; }
    else throw new Error('invalid utf-8');
    if (i + need >= bytes.length) throw new Error('invalid utf-8');
    for (let k = 1; k <= need; k++) {
      const n = bytes[i + k];
      if ((n & 0xc0) !== 0x80) throw new Error('invalid utf-8');
      cp = (cp << 6) | (n & 63);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new Error('invalid utf-8');
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out += String.fromCharCode(0xd800 + (cp >> 10), 0xdc00 + (cp & 1023));
    } else out += String.fromCharCode(cp);
    i += need + 1;
  }
  return out;
}

function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
    const left = bytes.length - i;
    out += alphabet[(n >> 18) & 63] + alphabet[(n >> 12) & 63];
    out += left > 1 ? alphabet[(n >> 6) & 63] : pad ? '=' : '';
    out += left > 2 ? alphabet[n & 63] : pad ? '=' : '';
  }
  return out;
}

function decode(text: string, alphabet: string): Uint8Array {
  if (text.length % 4 === 1) throw new Error('invalid base64 length');
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const v = alphabet.indexOf(text[i]);
    if (v < 0) throw new Error('invalid base64 character');
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 255;
    }
  }
  // Non-zero leftover bits mean a second spelling of the same bytes: refuse it.
  if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0) throw new Error('non-canonical base64');
  return out;
}

/**
 * Encode bytes as base64url without padding (RFC 4648 section 5).
 * @param bytes - any bytes
 */
export function base64urlEncode(bytes: Uint8Array): string {
  return encode(bytes, B64URL, false);
}

/**
 * Decode unpadded, canonical base64url.
 * @param text - base64url text; `=`, `+`, `/` and whitespace are refused
 * @throws Error on a foreign character, an impossible length or non-zero trailing bits
 */
export function base64urlDecode(text: string): Uint8Array {
  return decode(text, B64URL);
}

/**
 * Decode standard base64 as found in a PEM body (padding optional, whitespace ignored).
 * @param text - base64 text
 * @throws Error on a foreign character or misplaced padding
 */
export function base64Decode(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  const body = clean.replace(/={1,2}$/, '');
  if (clean.length % 4 !== 0 && clean !== body) throw new Error('invalid base64 padding');
  return decode(body, B64);
}

/**
 * Encode bytes as standard padded base64 (used to write PEM).
 * @param bytes - any bytes
 */
export function base64Encode(bytes: Uint8Array): string {
  return encode(bytes, B64, true);
}

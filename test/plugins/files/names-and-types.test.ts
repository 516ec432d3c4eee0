import { describe, expect, it } from 'vitest';
import { sanitizeFileName } from '../../../plugins/files/file-name.ts';
import { isInlineViewable, storedContentType } from '../../../plugins/files/content-type.ts';

describe('files: stored names', () => {
  it.each([
    ['../../etc/passwd', 'etcpasswd'],
    ['..\\..\\boot.ini', 'boot.ini'],
    ['a\u0000b\u0007\u001b[31mc.txt', 'ab[31mc.txt'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['x\u2066y\u2069\u200Bz\uFEFF.pdf', 'xyz.pdf'],
    ['  .hidden  ', 'hidden'],
    ['Cafe\u0301 报告 №1.pdf', 'Café 报告 №1.pdf'],
    ['\u0000/\\', 'file'],
  ])('%j is stored as %j', (given, stored) => {
    expect(sanitizeFileName(given)).toBe(stored);
  });

  it('keeps at most 255 characters, never splitting a character', () => {
    expect([...sanitizeFileName('😀'.repeat(300))]).toHaveLength(255);
  });
});

describe('files: stored content types', () => {
  it('trusts the bytes first, then a declared type that claims nothing viewable', () => {
    expect(storedContentType('image/png', 'text/html')).toBe('image/png');
    expect(storedContentType(undefined, 'image/png')).toBe('application/octet-stream');
    expect(storedContentType(undefined, 'application/pdf')).toBe('application/octet-stream');
    expect(storedContentType(undefined, 'Text/Plain; charset=utf-8')).toBe('text/plain');
    expect(storedContentType(undefined, 'text/html')).toBe('text/html');
    expect(storedContentType(undefined, 'not a type')).toBe('application/octet-stream');
    expect(storedContentType(undefined, '')).toBe('application/octet-stream');
  });

  it('shows only images, PDF, audio and video in place; never HTML or SVG', () => {
    for (const type of ['image/png', 'application/pdf', 'audio/mpeg', 'video/mp4']) expect(isInlineViewable(type)).toBe(true);
    for (const type of ['text/html', 'image/svg+xml', 'application/xml', 'application/octet-stream', 'text/plain']) expect(isInlineViewable(type)).toBe(false);
  });
});

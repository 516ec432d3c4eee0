import { CLOCK_TOLERANCE_SECONDS, TICKET_LIFETIME_SECONDS, type RearmPublicKeyDocument } from '../../appliance/api.ts';

/**
 * Renders the signing box spec sheet: what the box is, how re-arm works, and the key fingerprint a
 * box must be pinned to (or a note that this server has none). @returns the PDF bytes.
 */
export async function renderSpecSheet(key: RearmPublicKeyDocument | null, baseUrl: string, generatedAt: Date): Promise<Buffer> {
  // Loaded on the first request: pdfkit and its fonts cost a serving process ~24 MiB it rarely needs.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: 'Aerie roost signing box - spec sheet', Author: 'Aerie' } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));

  doc.fontSize(20).text('Aerie roost signing box', { underline: false });
  doc.moveDown(0.3).fontSize(10).fillColor('#555').text(`Spec sheet generated ${generatedAt.toISOString()} by ${baseUrl}`);
  doc.moveDown().fillColor('#000').fontSize(12);
  section(doc, 'What the box does', [
    'The box holds signing material and erases it when its tamper input trips (armed -> erased).',
    'A demo box in the erased state shows a one-time nonce and accepts one re-arm ticket signed by this server; a production box stays erased.',
  ]);
  section(doc, 'Re-arm tickets', [
    "Ticket: base64url(payload) '.' base64url(signature), no padding.",
    "Payload (UTF-8 JSON): {v:1, typ:'roost-rearm', box, nonce, org, by, iat, exp}.",
    `Lifetime: exp = iat + ${TICKET_LIFETIME_SECONDS} s; the box allows ${CLOCK_TOLERANCE_SECONDS} s of clock difference.`,
    'Signature: ECDSA P-256 over SHA-256 of the payload bytes as received, 64-byte r||s.',
    'Only the organization owner can obtain a ticket, sealed with a passkey bound to the box id and nonce.',
  ]);
  section(doc, 'Pinned key', key
    ? ['Algorithm: ES256 (P-256)', `Fingerprint (SHA-256 of SPKI DER): ${key.fingerprint}`, `Public key: ${baseUrl}/api/roost/rearm-public-key`]
    : ['This server has no re-arm key configured; re-arm tickets are disabled.']);
  doc.end();
  return done;
}

function section(doc: PDFKit.PDFDocument, title: string, lines: string[]): void {
  doc.moveDown().fontSize(14).text(title).moveDown(0.3).fontSize(11);
  for (const line of lines) doc.text(line, { paragraphGap: 3 });
}

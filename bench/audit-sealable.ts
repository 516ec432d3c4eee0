/**
 * What "acknowledged means sealable" costs on append: `checkSealable` (iterative walk, bounds, the
 * RFC 8785 canonical form) per event, side by side with the `JSON.stringify` of the same rows that
 * append already does for its one INSERT. Pure CPU, no database.
 *
 *   node --import tsx bench/audit-sealable.ts [events]
 */
import { randomUUID } from 'node:crypto';
import { checkSealable } from '../core/audit/sealable.ts';

const n = Number(process.argv[2] ?? 50_000);
const orgId = randomUUID();
const events = Array.from({ length: n }, (_, i) => ({
  orgId, eventType: 'app.order.placed', businessData: { i, note: 'ünïcødé ✓', items: [{ sku: `A-${i}`, qty: 2 }], total: 12.5 },
}));
const time = (fn: () => void) => {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const rows: Array<[number, number]> = [];
for (let r = 0; r < 5; r++) {
  const check = time(() => { for (const e of events) checkSealable(e, 16_384); });
  const stringify = time(() => JSON.stringify(events.map((e) => ({ ...e, id: randomUUID() }))));
  rows.push([check, stringify]);
}
rows.sort((a, b) => a[0] - b[0]);
const [check, stringify] = rows[Math.floor(rows.length / 2)];
console.log(`${n.toLocaleString('en')} events, median of ${rows.length} runs; node ${process.version}`);
console.log(`checkSealable:              ${check.toFixed(0)} ms = ${((check * 1000) / n).toFixed(1)} µs/event`);
console.log(`append's JSON.stringify:    ${stringify.toFixed(0)} ms = ${((stringify * 1000) / n).toFixed(1)} µs/event`);
console.log(`ratio check / stringify:    ${(check / stringify).toFixed(2)}`);

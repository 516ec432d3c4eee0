/**
 * The Parquet columns of a day file, built record by record for `hyparquet-writer` with little
 * garbage that outlives a record: the records arrive one at a time (NDJSON lines parsed one by one,
 * so each parsed record dies young), each text column's UTF-8 is written once into one buffer and
 * handed to the writer as views into it (the writer would otherwise encode every value into a fresh
 * `ArrayBuffer`, 11 per record, whose backing stores V8's GC helper threads then track and free),
 * equal values of a repeating column share one view, a record's `prevHash` shares the previous
 * record's `chainHash` view, and integers and timestamps go into typed arrays (no `Date` or
 * `bigint` per value until the writer reads them).
 * The file's bytes are those of the same columns given as strings, `Date`s and `bigint`s.
 *
 * @see docs/audit.md ("Archive: day files")
 */
import type { ColumnSource } from 'hyparquet-writer';
import type { SealedAuditRecord } from './audit-record.ts';
import { canonicalJson } from './canonical-json.ts';

/**
 * The day's first and last chain positions, as the day file's metadata names them.
 * Shape: `{ orgId, firstSeq, lastSeq, prevHash (of the first record), headHash (chainHash of the last) }`.
 */
export interface DayRun {
  orgId: string;
  firstSeq: number;
  lastSeq: number;
  prevHash: string;
  headHash: string;
}

/**
 * Collects one organization's records, in `seq` order, into day-file columns. With `checked`,
 * `push` refuses a record that does not continue the run (another organization, not the next `seq`).
 *
 * @example const b = new DayFileColumns(records.length, true); for (const r of records) b.push(r); b.columns();
 * @see docs/audit.md "Archive: day files"
 */
export class DayFileColumns {
  /** Records pushed so far. */
  count = 0;
  private run: DayRun | undefined;
  private readonly seq: BigInt64Array;
  private readonly hashVersion: Int32Array;
  private readonly occurredAt: TimestampColumn;
  private readonly sealedAt: TimestampColumn;
  private readonly text: Record<'id' | 'orgId' | 'eventType' | 'actorType' | 'actorId' | 'appGroupId' | 'businessData' | 'payloadHash' | 'chainHash', Utf8Column>;
  private readonly prevHash: Array<Uint8Array>;

  /**
   * @param capacity - the number of records to come (exactly; `columns()` refuses fewer).
   * @param checked - whether `push` checks the run (organization, `seq` gap).
   */
  constructor(private readonly capacity: number, private readonly checked: boolean) {
    this.seq = new BigInt64Array(capacity);
    this.hashVersion = new Int32Array(capacity);
    this.occurredAt = new TimestampColumn(capacity);
    this.sealedAt = new TimestampColumn(capacity);
    const column = (repeats: boolean, bytesPerValue: number) => new Utf8Column(capacity, repeats, bytesPerValue);
    this.text = {
      id: column(false, 36), orgId: column(true, 0), eventType: column(true, 0), actorType: column(true, 0), actorId: column(true, 0), appGroupId: column(true, 0),
      businessData: column(false, 256), payloadHash: column(false, 64), chainHash: column(false, 64),
    };
    this.prevHash = new Array<Uint8Array>(capacity);
  }

  /**
   * Add the next record.
   * @throws RangeError (when `checked`) when it belongs to another organization than the first, or
   *   its `seq` does not follow the previous record's; RangeError beyond the capacity; TypeError as `canonicalJson` for a `businessData` that is not JSON.
   */
  push(r: SealedAuditRecord): void {
    const i = this.count;
    if (i === this.capacity) throw new RangeError(`day file: more than the ${this.capacity} records announced`);
    const run = this.run;
    if (!run) {
      this.run = { orgId: r.orgId, firstSeq: r.seq, lastSeq: r.seq, prevHash: r.prevHash, headHash: r.chainHash };
    } else if (this.checked) {
      if (r.orgId !== run.orgId) throw new RangeError(`day file: record ${r.id} belongs to another organization`);
      if (r.seq !== run.lastSeq + 1) throw new RangeError(`day file: seq ${r.seq} follows seq ${run.lastSeq}`);
    }
    const { text } = this;
    text.id.push(r.id);
    text.orgId.push(r.orgId);
    this.seq[i] = BigInt(r.seq);
    text.eventType.push(r.eventType);
    this.occurredAt.push(r.occurredAt);
    text.actorType.push(r.actor.type);
    text.actorId.push(r.actor.id);
    text.appGroupId.push(r.appGroupId ?? null);
    text.businessData.push(canonicalJson(r.businessData));
    this.sealedAt.push(r.sealedAt);
    this.hashVersion[i] = r.hashVersion ?? 1;
    text.payloadHash.push(r.payloadHash);
    // A record's prevHash is, in a linked run, the previous record's chainHash: the same bytes.
    const previous = i > 0 && run!.headHash === r.prevHash ? text.chainHash.values[i - 1] : undefined;
    this.prevHash[i] = previous ?? text.chainHash.encode(r.prevHash);
    text.chainHash.push(r.chainHash);
    if (run) {
      run.lastSeq = r.seq;
      run.headHash = r.chainHash;
    }
    this.count++;
  }

  /** A builder holding `records` (pushed in order). @throws as {@link DayFileColumns.push}. */
  static of(records: readonly SealedAuditRecord[], checked: boolean): DayFileColumns {
    const builder = new DayFileColumns(records.length, checked);
    for (const r of records) builder.push(r);
    return builder;
  }

  /** The run's first and last positions. @throws RangeError when no record was pushed. */
  dayRun(): DayRun {
    if (!this.run) throw new RangeError('a day file holds at least one record');
    return { ...this.run };
  }

  /**
   * The columns, in file order (one per record field; `businessData` as canonical JSON text,
   * timestamps as TIMESTAMP, `seq` as INT64, `hashVersion` 1 or 2): hyparquet-writer `columnData`.
   * @throws RangeError when fewer records than announced were pushed, or none.
   */
  columns(): ColumnSource[] {
    if (this.count !== this.capacity) throw new RangeError(`day file: ${this.count} records, ${this.capacity} announced`);
    this.dayRun();
    const { text } = this;
    const str = (name: string, data: Array<Uint8Array | null>, nullable = false): ColumnSource => ({ name, data, type: 'STRING', nullable });
    return [
      str('id', text.id.values), str('orgId', text.orgId.values),
      { name: 'seq', data: this.seq, type: 'INT64', nullable: false },
      str('eventType', text.eventType.values),
      { name: 'occurredAt', data: this.occurredAt.values, type: 'TIMESTAMP', nullable: false },
      str('actorType', text.actorType.values), str('actorId', text.actorId.values), str('appGroupId', text.appGroupId.values, true),
      str('businessData', text.businessData.values),
      { name: 'sealedAt', data: this.sealedAt.values, type: 'TIMESTAMP', nullable: false },
      { name: 'hashVersion', data: this.hashVersion, type: 'INT32', nullable: false },
      str('payloadHash', text.payloadHash.values), str('prevHash', this.prevHash), str('chainHash', text.chainHash.values),
    ];
  }
}

/**
 * The Parquet columns of a day file's records (see {@link DayFileColumns.columns}), unchecked (a
 * tool may write any rows; `encodeDayFile` checks the run).
 * @param records - sealed records, in file order.
 * @returns hyparquet-writer `columnData`.
 * @throws RangeError for no records; TypeError as `canonicalJson`.
 * @see docs/audit.md "Archive: day files"
 */
export function dayFileColumns(records: readonly SealedAuditRecord[]): ColumnSource[] {
  return DayFileColumns.of(records, false).columns();
}

/**
 * A text column as UTF-8: values are written one after another into one buffer (a new, doubled
 * buffer when full — earlier views keep the old one), each value a `Uint8Array` view of its bytes.
 * With `repeats`, an equal earlier value's view is reused (organization, event type, actor).
 */
class Utf8Column {
  readonly values: Array<Uint8Array | null>;
  private buffer: Buffer;
  private start = 0;
  private count = 0;
  private readonly seen: Map<string, Uint8Array> | undefined;

  constructor(n: number, repeats: boolean, bytesPerValue: number) {
    this.values = new Array<Uint8Array | null>(n);
    this.buffer = Buffer.allocUnsafe(Math.max(n * bytesPerValue, 1024));
    this.seen = repeats ? new Map() : undefined;
  }

  push(value: string | null): void {
    if (value === null) {
      this.values[this.count++] = null;
      return;
    }
    let view = this.seen?.get(value);
    if (!view) {
      view = this.encode(value);
      this.seen?.set(value, view);
    }
    this.values[this.count++] = view;
  }

  /** The UTF-8 of `value` in this column's buffer (not added to the column). */
  encode(value: string): Uint8Array {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit; counted exactly only near the buffer's end.
    const room = this.buffer.length - this.start;
    if (room < value.length * 3 && room < Buffer.byteLength(value)) {
      this.buffer = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, value.length * 3));
      this.start = 0;
    }
    const length = this.buffer.write(value, this.start);
    const view = new Uint8Array(this.buffer.buffer, this.buffer.byteOffset + this.start, length);
    this.start += length;
    return view;
  }
}

/**
 * A TIMESTAMP column as epoch milliseconds; a value equal to the previous one (records sealed in one
 * batch share `sealedAt`) is not parsed again.
 */
class TimestampColumn {
  readonly values: BigInt64Array;
  private count = 0;
  private lastText = '';
  private last = 0n;

  constructor(n: number) {
    this.values = new BigInt64Array(n);
  }

  /** @throws RangeError for a text `Date.parse` cannot read. */
  push(iso: string): void {
    if (iso !== this.lastText) {
      this.last = BigInt(Date.parse(iso));
      this.lastText = iso;
    }
    this.values[this.count++] = this.last;
  }
}

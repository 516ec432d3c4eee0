import { gzipSync } from 'node:zlib';
import { parquetMetadata, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SealedAuditRecord } from '../../../../core/audit/chain/audit-record.ts';
import {
  DAY_FILE_ROW_GROUP_ROWS, DayFileFormatError, dayFileColumns, dayFileRecords, decodeDayFile, encodeDayFile, readDayFileMeta,
} from '../../../../core/audit/chain/day-file.ts';
import { ORG_A, makeRecords, sealRecords } from './fixtures.ts';

const DAY = '2026-10-16';
const COUNT = 2 * DAY_FILE_ROW_GROUP_ROWS + 5_000;

let records: SealedAuditRecord[];
let bytes: Uint8Array;
let footer: FileMetaData;

const arrayBuffer = (b: Uint8Array) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** An AsyncBuffer over `file` that answers asynchronously (as a range reader does) and logs every range fetched. */
function rangeReader(file: Uint8Array): AsyncBuffer & { fetched: Array<[number, number]> } {
  const fetched: Array<[number, number]> = [];
  return {
    byteLength: file.byteLength,
    fetched,
    slice: async (start, end = file.byteLength) => {
      fetched.push([start, end]);
      return arrayBuffer(file.subarray(start, end));
    },
  };
}

/** The byte span [first, last) of a row group's column chunks. */
function groupSpan(group: FileMetaData['row_groups'][number]): [number, number] {
  const starts = group.columns.map((c) => Number(c.meta_data!.dictionary_page_offset ?? c.meta_data!.data_page_offset));
  const ends = group.columns.map((c, i) => starts[i] + Number(c.meta_data!.total_compressed_size));
  return [Math.min(...starts), Math.max(...ends)];
}

/** A Parquet file with the day-file columns of `rows` and `file`'s key-value metadata (what another writer may produce). */
function rewrite(columns: ColumnSource[], options: { rowGroupSize?: number; kv?: boolean } = {}): Uint8Array {
  return new Uint8Array(parquetWriteBuffer({
    columnData: columns, codec: 'GZIP', compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) }, statistics: false,
    rowGroupSize: options.rowGroupSize ?? DAY_FILE_ROW_GROUP_ROWS, kvMetadata: options.kv === false ? [] : footer.key_value_metadata,
  }));
}

async function collect(source: Uint8Array | AsyncBuffer): Promise<SealedAuditRecord[][]> {
  const groups: SealedAuditRecord[][] = [];
  for await (const group of dayFileRecords(source)) groups.push(group);
  return groups;
}

beforeAll(() => {
  records = sealRecords(makeRecords(ORG_A, COUNT), `${DAY}T09:00:00.000Z`);
  bytes = encodeDayFile({ records, day: DAY, checkpoints: [] }).bytes;
  footer = parquetMetadata(arrayBuffer(bytes));
});

describe('day files stream by row group', () => {
  it(`the writer cuts row groups of ${DAY_FILE_ROW_GROUP_ROWS} rows, the reader yields one group at a time, together what the whole decode gives`, async () => {
    expect(footer.row_groups.map((g) => Number(g.num_rows))).toEqual([DAY_FILE_ROW_GROUP_ROWS, DAY_FILE_ROW_GROUP_ROWS, 5_000]);
    const groups = await collect(bytes);
    expect(groups.map((g) => g.length)).toEqual([DAY_FILE_ROW_GROUP_ROWS, DAY_FILE_ROW_GROUP_ROWS, 5_000]);
    expect(groups.flat()).toEqual((await decodeDayFile(bytes)).records);
    expect(groups.flat()).toEqual(records);
    expect(groups[1][0].seq).toBe(DAY_FILE_ROW_GROUP_ROWS + 1);
  });

  it('over a range reader: nothing is fetched before the first next(), then the footer, then only the group being read', async () => {
    const reader = rangeReader(bytes);
    const stream = dayFileRecords(reader);
    expect(reader.fetched).toEqual([]);
    const spans = footer.row_groups.map(groupSpan);
    for (const [i, span] of spans.entries()) {
      const before = reader.fetched.length;
      const step = await stream.next();
      expect(step.done).toBe(false);
      expect((step.value as SealedAuditRecord[])[0].seq).toBe(i * DAY_FILE_ROW_GROUP_ROWS + 1);
      // The first step reads the footer first: the file's last bytes, 64 KiB at most.
      const rows = reader.fetched.slice(i === 0 ? 1 : before);
      if (i === 0) expect(reader.fetched[0]).toEqual([bytes.byteLength - Math.min(bytes.byteLength, 65_536), bytes.byteLength]);
      expect(rows.length).toBeGreaterThan(0);
      for (const [start, end] of rows) {
        expect(start).toBeGreaterThanOrEqual(span[0]);
        expect(end).toBeLessThanOrEqual(span[1]);
      }
    }
    expect((await stream.next()).done).toBe(true);
  });

  it('readDayFileMeta reads the footer alone and answers what the whole decode gives', async () => {
    const reader = rangeReader(bytes);
    const meta = await readDayFileMeta(reader);
    expect(meta).toEqual((await decodeDayFile(bytes)).meta);
    expect(meta).toMatchObject({ orgId: ORG_A, day: DAY, firstSeq: 1, lastSeq: COUNT, headHash: records[COUNT - 1].chainHash });
    expect(reader.fetched).toEqual([[bytes.byteLength - 65_536, bytes.byteLength]]);
  });

  it('a file written with one large row group (files before row groups were bounded) streams as one group', async () => {
    const big = rewrite(dayFileColumns(records), { rowGroupSize: 100_000 });
    const groups = await collect(big);
    expect(groups.map((g) => g.length)).toEqual([COUNT]);
    expect(groups[0]).toEqual(records);
  });

  it('not an Aerie day file: DayFileFormatError from the first next(), before any row', async () => {
    await expect(collect(new TextEncoder().encode('{"not":"parquet"}'))).rejects.toThrow(DayFileFormatError);
    const plain = rewrite(dayFileColumns(records.slice(0, 10)), { kv: false });
    await expect(collect(plain)).rejects.toThrow(/metadata aerie\.format is missing/);
    await expect(readDayFileMeta(plain)).rejects.toThrow(DayFileFormatError);
  });

  it('a row that cannot be decoded fails its own group, numbered in the file, after the groups before it were yielded', async () => {
    const columns = dayFileColumns(records);
    const versions = columns.find((c) => c.name === 'hashVersion')!;
    const bad = DAY_FILE_ROW_GROUP_ROWS + 2;
    versions.data = Array.from(versions.data as number[], (v, i) => (i === bad - 1 ? 3 : v));
    const stream = dayFileRecords(rewrite(columns));
    expect(((await stream.next()).value as SealedAuditRecord[]).length).toBe(DAY_FILE_ROW_GROUP_ROWS);
    const error = await stream.next().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DayFileFormatError);
    expect((error as Error).message).toBe(`row ${bad}: hashVersion 3 is unknown`);
  });
});

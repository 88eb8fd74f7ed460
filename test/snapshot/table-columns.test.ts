/**
 * Every table's columns are declared once (schema.ts, documents' in document-columns.ts) and every
 * writer is made from that declaration by name: the published files have exactly the declared
 * columns in their order, and what went in comes back out of the same column: the crawl's document
 * records (through staging, the export and reparse's reading back), the statements and the schedule.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { DocumentRecord, ScheduleEntry } from '../../pipeline/core/index.ts';
import { RECORD_COLUMNS } from '../../pipeline/snapshot/document-columns.ts';
import {
  openDuckDb,
  parquetFileName,
  readSchedule,
  snapshotName,
  sqlString,
  TABLE_NAMES,
  TABLES,
} from '../../pipeline/snapshot/index.ts';
import {
  publishedQuadsSql,
  QUAD_COLUMNS,
  statementsByGraph,
} from '../../pipeline/snapshot/published-quads.ts';
import { uncarriedRecords } from '../../pipeline/snapshot/reparse-rows.ts';
import { readRows } from './read-rows.ts';
import { publishSampleWeeks, schedule, WEEK1, WEEK2, week1, week2 } from './sample-crawl.ts';

let root: string;
const folder = (week: number) => join(root, snapshotName('weekly', week));

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'table-columns-'));
  await publishSampleWeeks(root, schedule());
});

after(() => rm(root, { recursive: true, force: true }));

test("every published table has schema.ts's columns, in its order and types, and rows", async () => {
  for (const table of TABLE_NAMES) {
    const file = sqlString(join(folder(WEEK2), parquetFileName(table)));
    const described = await readRows(`DESCRIBE SELECT * FROM read_parquet(${file})`);
    assert.deepEqual(
      described.map(([name, type]) => `${name} ${type}`),
      TABLES[table].map((c) => `${c.name} ${c.type}`),
      table,
    );
    const [[rows]] = await readRows(`SELECT count(*) FROM read_parquet(${file})`);
    assert.ok(Number(rows) > 0, `${table}.parquet of week 2 has rows`);
  }
});

/** A record field as the journal holds it, an absent optional field as the null a column reads. */
const field = (record: DocumentRecord, name: keyof DocumentRecord) => record[name] ?? null;

test('each document record comes back from documents.parquet field by field, from its own column', async () => {
  for (const [week, crawl] of [
    [WEEK1, week1()],
    [WEEK2, week2()],
  ] as const) {
    const session = await openDuckDb();
    const published = new Map<string, DocumentRecord>();
    try {
      for await (const record of uncarriedRecords(session.connection, folder(week)))
        published.set(record.url, record);
    } finally {
      session.close();
    }
    const fields = new Set<string>(RECORD_COLUMNS.map((c) => c.field));
    for (const { record } of crawl) {
      // a field the crawler writes that no column takes would be lost on the way
      for (const name of Object.keys(record))
        assert.ok(fields.has(name), `no documents column takes ${name}`);
      // carried rows are read back with their source's statements (reparse-rows.ts carriedDocuments)
      if (record.carriedFrom) continue;
      const back = published.get(record.url);
      assert.ok(back, `${record.url} published`);
      assert.deepEqual(Object.keys(back).sort(), [...fields].sort(), record.url);
      for (const c of RECORD_COLUMNS)
        assert.deepEqual(
          field(back, c.field),
          field(record, c.field),
          `${record.url}: ${c.field} (${c.name})`,
        );
    }
  }
});

test('the statements and the schedule come back from quads.parquet and schedule.parquet as they went in', async () => {
  const session = await openDuckDb();
  try {
    const quads = await publishedQuadsSql(folder(WEEK1));
    const byGraph = await statementsByGraph(session.connection, `SELECT ${QUAD_COLUMNS} FROM ${quads}`);
    for (const { record, statements } of week1()) {
      if (statements.length === 0) continue;
      const key = (s: object) => JSON.stringify(s);
      assert.deepEqual(
        (byGraph.get(record.finalUrl) ?? []).map(key).sort(),
        [...new Set(statements.map(key))].sort(),
        record.finalUrl,
      );
    }
  } finally {
    session.close();
  }
  const byUrl = (a: ScheduleEntry, b: ScheduleEntry) => a.url.localeCompare(b.url);
  assert.deepEqual(await readSchedule(folder(WEEK2)), schedule().sort(byUrl));
});

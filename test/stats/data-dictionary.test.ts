import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  isSchemaVersion,
  parquetFileName,
  SNAPSHOT_SCHEMA_VERSION,
  TABLE_NAMES,
  TABLES,
} from '../../pipeline/snapshot/schema.ts';
import { DICTIONARY_FILE, parseDictionary } from '../../pipeline/stats/data-dictionary.ts';
import { EXPANSION_ROUND } from '../../pipeline/stats/portal-data.ts';

const dictionary = readFileSync(DICTIONARY_FILE, 'utf8');

test('the dictionary lists every schema version up to the one published now, and no other', () => {
  const listed = [...dictionary.matchAll(/^- \*\*(\d+)\*\*: \S/gm)].map((m) => Number(m[1]));
  assert.deepEqual(
    listed,
    Array.from({ length: SNAPSHOT_SCHEMA_VERSION }, (_, i) => i + 1),
    'docs/data-dictionary.md, "Schema versions": one line per version, what it changed',
  );
  for (const version of listed) assert.ok(isSchemaVersion(version), `schema ${version} is read`);
  // a number in prose goes stale at the next bump: the manifest field points at the list instead
  const manifestRow = dictionary.split('\n').find((l) => l.startsWith('| `schemaVersion` |'));
  assert.ok(manifestRow, 'the manifest table has a schemaVersion row');
  assert.doesNotMatch(manifestRow, /\d/);
  assert.doesNotMatch(dictionary, /^Schema version: \*\*\d+\*\*/m);
});

test("the dictionary describes every published table's columns, in schema.ts's order and types", () => {
  const tables = parseDictionary(dictionary);
  for (const table of TABLE_NAMES) {
    const documented = tables.find((t) => t.file === parquetFileName(table));
    assert.ok(documented, `docs/data-dictionary.md has a section for ${parquetFileName(table)}`);
    assert.deepEqual(
      documented.columns.map((c) => `${c.name} ${c.type}`),
      // the dictionary writes DuckDB's short name for the instant type
      TABLES[table].map((c) => `${c.name} ${c.type.replace('TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ')}`),
      parquetFileName(table),
    );
  }
});

test('every column says since which listed schema version it exists', () => {
  const columns = parseDictionary(dictionary).flatMap((t) => t.columns.map((c) => ({ ...c, file: t.file })));
  assert.ok(columns.length > 50, `${columns.length} columns`);
  for (const c of columns)
    assert.ok(
      Number.isInteger(Number(c.since)) && Number(c.since) >= 1 && Number(c.since) <= SNAPSHOT_SCHEMA_VERSION,
      `${c.file} ${c.name}: since ${c.since}`,
    );
});

test("documents' round means for an expansion crawl what the portal says it means", () => {
  const documents = parseDictionary(dictionary).find((t) => t.file === 'documents.parquet');
  const round = documents?.columns.find((c) => c.name === 'round');
  assert.ok(round, 'documents.parquet has a round row');
  // the Markdown's code and emphasis marks aside, the row says the sentence the Downloads page and
  // the DCAT description say (EXPANSION_ROUND)
  assert.ok(round.meaning.replace(/[`*]/g, '').includes(EXPANSION_ROUND), round.meaning);
});

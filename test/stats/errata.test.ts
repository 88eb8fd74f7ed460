import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { DICTIONARY_FILE, parseDefinitions } from '../../pipeline/stats/data-dictionary.ts';
import { ERRATA, erratumViews } from '../../pipeline/stats/errata.ts';
import type { SnapshotView } from '../../pipeline/stats/portal-data.ts';

/** A snapshot whose manifest states `published` availability changes and whose digest says `corrected`. */
const snapshot = (name: string, published: number, corrected: number) =>
  ({
    name,
    stats: { bytes: 1000, changes: { availabilityChanged: published } },
    digest: { bytes: 1000, availabilityChanged: corrected },
  }) as unknown as SnapshotView;

test('the errata list each snapshot whose files state another value than the corrected one, and only those', () => {
  const [view, bytes] = erratumViews([snapshot('2026-01-05', 12, 12), snapshot('2026-01-12', 279, 7)]);
  assert.equal(view.id, 'availability-304');
  assert.deepEqual(view.snapshots, [{ name: '2026-01-12', published: 279, corrected: 7 }]);
  assert.equal(bytes.id, 'bytes-304');
  assert.deepEqual(bytes.snapshots, []);
});

test('every erratum and every figure the errata name is written in docs/errata.md and the Definitions', async () => {
  const errata = await readFile(new URL('../../docs/errata.md', import.meta.url), 'utf8');
  const definitions = parseDefinitions(await readFile(DICTIONARY_FILE, 'utf8'));
  const figures = definitions.rows.map((r) => r[0]);
  for (const e of ERRATA) assert.match(errata, new RegExp(`^## ${e.id}:`, 'm'));
  for (const figure of [
    'documents',
    'statements',
    'PLDs',
    'new PLDs',
    'available',
    'changed',
    'availability change',
    'degree of change',
    'lifespan',
  ]) {
    assert.ok(figures.includes(figure), `${figure} is defined`);
  }
  assert.deepEqual(definitions.columns, ['figure', 'definition', 'edge cases']);
});

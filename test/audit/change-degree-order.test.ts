/**
 * The Dynamics page's degree-of-change chart sums the buckets of every snapshot's digest. Its bars
 * came in the order the buckets were first met, so a series whose first changes were all of 2-5
 * triples drew "1" after "2-5". Found while writing the truth audit, whose independent table lists
 * the buckets in their order (docs/audit.md, Findings).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HistoryFigures } from '../../pipeline/stats/history.ts';
import { portalCharts } from '../../pipeline/stats/portal-charts.ts';
import type { SnapshotView } from '../../pipeline/stats/portal-data.ts';

const table = { columns: ['x', 'n'], rows: [] };
const history = {
  changeFrequency: table,
  availability: table,
  lifespan: table,
  mostDynamicPlds: table,
  leastDynamicPlds: table,
  mostDynamicDocuments: table,
  newPlds: new Map(),
} as unknown as HistoryFigures;

function week(startedAt: string, changeDegree: Array<{ key: string; count: number }>): SnapshotView {
  return {
    name: startedAt.slice(0, 10),
    kind: 'weekly',
    startedAt,
    newPlds: 0,
    files: [],
    stats: { documents: 10, statements: 100, plds: { total: 1 }, changes: { changed: 3, unchanged: 7 } },
    digest: { available: 10, levels: { 0: 10 }, changeDegree },
  } as unknown as SnapshotView;
}

test('the degree-of-change chart lists its buckets in their order, whichever snapshot met them first', async () => {
  const charts = await portalCharts(
    [
      week('2026-01-05T00:00:00.000Z', [
        { key: '2-5', count: 2 },
        { key: 'over 100', count: 1 },
      ]),
      week('2026-01-12T00:00:00.000Z', [
        { key: '1', count: 1 },
        { key: '6-20', count: 2 },
        { key: '21-100', count: 1 },
      ]),
    ],
    history,
  );
  assert.deepEqual(charts['change-degree'].table.rows, [
    ['1', 1],
    ['2-5', 2],
    ['6-20', 2],
    ['21-100', 1],
    ['over 100', 1],
  ]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latestAlias, latestWeekly, weeklyTrend } from '../../pipeline/stats/latest-alias.ts';
import type { SnapshotView } from '../../pipeline/stats/portal-data.ts';

const BASE = 'https://observatory.example/portal/';

/** Snapshots oldest first, as `kind name` each. */
const cases: ReadonlyArray<[string, string[], string]> = [
  [
    'an interval crawl after the newest weekly one is not "latest"',
    ['weekly w1', 'weekly w2', 'interval i1'],
    'w2',
  ],
  ['the newest of several weekly snapshots', ['weekly w1', 'interval i1', 'weekly w2'], 'w2'],
  ['with no weekly snapshot, the newest of any kind', ['interval i1', 'interval i2'], 'i2'],
];

for (const [title, listed, expected] of cases)
  test(`latestWeekly: ${title}`, () => {
    const snapshots = listed.map((l) => ({ kind: l.split(' ')[0], name: l.split(' ')[1] }));
    assert.equal(latestWeekly(snapshots).name, expected);
  });

test('weeklyTrend: the weekly snapshots in order, or every snapshot when there is none', () => {
  const of = (...listed: string[]) => listed.map((l) => ({ kind: l.split(' ')[0], name: l.split(' ')[1] }));
  const names = (list: readonly { name: string }[]) => list.map((s) => s.name);
  assert.deepEqual(names(weeklyTrend(of('weekly w1', 'interval i1', 'weekly w2', 'interval i2'))), [
    'w1',
    'w2',
  ]);
  assert.deepEqual(names(weeklyTrend(of('interval i1', 'interval i2'))), ['i1', 'i2']);
});

test('the latest alias names the newest weekly snapshot, its page and its files', () => {
  const view = (kind: 'weekly' | 'interval', name: string) =>
    ({
      kind,
      name,
      startedAt: `${name}T00:00:00.000Z`,
      manifestSha256: `sha-${name}`,
      files: [{ name: `${name}.nq.gz` }],
    }) as unknown as SnapshotView;
  const alias = latestAlias(BASE, [
    view('weekly', '2026-11-09'),
    view('weekly', '2026-11-16'),
    view('interval', '2026-11-18'),
  ]);
  assert.equal(alias.name, '2026-11-16');
  assert.equal(alias.manifestSha256, 'sha-2026-11-16');
  assert.equal(alias.page, `${BASE}snapshots/2026-11-16/`);
  assert.deepEqual(alias.files, [{ name: '2026-11-16.nq.gz' }]);
});

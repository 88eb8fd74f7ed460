import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { manualClock, type ProgressState } from '../../pipeline/core/index.ts';
import { PHASE_WEIGHTS, publishSnapshot, snapshotName } from '../../pipeline/snapshot/index.ts';
import { source, WEEK1, week1 } from './sample-crawl.ts';

test('a publish tells its progress phase by phase, as a weighted percentage, with its statements once quads.parquet holds them', async () => {
  const told: Array<ProgressState & { final: boolean }> = [];
  const published = await publishSnapshot({
    root: mkdtempSync(join(tmpdir(), 'publish-progress-')),
    name: snapshotName('weekly', WEEK1),
    kind: 'weekly',
    startedAt: WEEK1,
    endedAt: WEEK1 + 3_600_000,
    config: {},
    documents: source(week1()),
    clock: manualClock(WEEK1 + 7_200_000),
    progress: {
      update: (state) => told.push({ ...state, final: false }),
      finish: (state) => told.push({ ...state, final: true }),
    },
  });
  const phases = Object.keys(PHASE_WEIGHTS);
  assert.deepEqual(
    told.map((s) => s.extra?.phase),
    phases,
  );
  const cumulative: number[] = [];
  for (const p of phases) cumulative.push((cumulative.at(-1) ?? 0) + PHASE_WEIGHTS[p]);
  assert.deepEqual(
    told.map((s) => [s.done, s.total, s.final]),
    phases.map((_, i) => [cumulative[i], 100, i === phases.length - 1]),
  );
  assert.equal(cumulative.at(-1), 100);
  assert.deepEqual(
    told.map((s) => s.statements),
    [undefined, undefined, ...Array(8).fill(published.manifest.counts.statements)],
  );
});

import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { manualClock, type ProgressState } from '../../pipeline/core/index.ts';
import { PUBLISH_PHASES, publishSnapshot, snapshotName } from '../../pipeline/snapshot/index.ts';
import { source, WEEK1, week1 } from './sample-crawl.ts';

test('a publish tells its progress phase by phase, with its statements once quads.parquet holds them', async () => {
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
  assert.deepEqual(
    told.map((s) => [s.done, s.total, s.extra?.phase, s.final]),
    [
      [1, PUBLISH_PHASES, 'staging', false],
      [2, PUBLISH_PHASES, 'change detection', false],
      [3, PUBLISH_PHASES, 'quads.parquet', false],
      [4, PUBLISH_PHASES, 'documents.parquet', false],
      [5, PUBLISH_PHASES, 'redirects.parquet', false],
      [6, PUBLISH_PHASES, 'changes.parquet', false],
      [7, PUBLISH_PHASES, 'schedule.parquet', false],
      [8, PUBLISH_PHASES, 'data.nq.gz', false],
      [9, PUBLISH_PHASES, 'stats', false],
      [10, PUBLISH_PHASES, 'checksums and fsync', true],
    ],
  );
  assert.deepEqual(
    told.map((s) => s.statements),
    [undefined, undefined, ...Array(8).fill(published.manifest.counts.statements)],
  );
});

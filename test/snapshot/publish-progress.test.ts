import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ProgressState } from '../../pipeline/core/index.ts';
import { PHASE_WEIGHTS } from '../../pipeline/snapshot/index.ts';
import { publishWeek, source, WEEK1, week1 } from './sample-crawl.ts';

test('a publish tells its progress phase by phase, as a weighted percentage, with its statements once quads.parquet holds them', async () => {
  const told: Array<ProgressState & { final: boolean }> = [];
  const root = mkdtempSync(join(tmpdir(), 'publish-progress-'));
  const published = await publishWeek(root, WEEK1, source(week1()), undefined, {
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
    [undefined, undefined, ...Array(phases.length - 2).fill(published.manifest.counts.statements)],
  );
});

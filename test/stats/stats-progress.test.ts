import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Progress, ProgressState } from '../../pipeline/core/index.ts';
import { computePortalData, statsOptions } from '../../pipeline/stats/index.ts';
import { publishSampleWeeks } from '../snapshot/sample-crawl.ts';

/** A Progress that records what it hears. */
function recorder(): Progress & { updates: ProgressState[]; finished: ProgressState[] } {
  const updates: ProgressState[] = [];
  const finished: ProgressState[] = [];
  return { updates, finished, update: (s) => updates.push(s), finish: (s) => finished.push(s) };
}

test('the stats stage reports each phase, and each snapshot it verifies and digests, then finishes', async () => {
  const root = await mkdtemp(join(tmpdir(), 'stats-progress-'));
  try {
    await publishSampleWeeks(root);
    const cold = recorder();
    await computePortalData(statsOptions({ root, dataDir: `${root}-data` }), cold);
    const phases = [...new Set(cold.updates.map((u) => u.extra?.phase))];
    assert.deepEqual(phases, ['verifying new snapshots', 'history totals', 'snapshot figures']);
    assert.deepEqual(
      cold.updates.filter((u) => u.extra?.phase === 'verifying new snapshots').map((u) => [u.done, u.total]),
      [
        [1, 2],
        [2, 2],
      ],
    );
    assert.deepEqual(
      cold.updates.filter((u) => u.extra?.phase === 'snapshot figures').map((u) => [u.done, u.total]),
      [
        [0, 2],
        [1, 2],
      ],
    );
    assert.deepEqual(cold.finished, [{ done: 2, total: 2, extra: { phase: 'done' } }]);
    // a rebuild verifies nothing again: every digest is cached
    const warm = recorder();
    await computePortalData(statsOptions({ root, dataDir: `${root}-data` }), warm);
    assert.ok(!warm.updates.some((u) => u.extra?.phase === 'verifying new snapshots'));
  } finally {
    await rm(root, { recursive: true, force: true });
    await rm(`${root}-data`, { recursive: true, force: true });
  }
});

/**
 * Child process for the kill -9 and memory-limit tests: publishes one synthetic weekly crawl into
 * argv[2], of argv[3] documents (3,000 when absent).
 */
import { manualClock } from '../../pipeline/core/index.ts';
import { publishSnapshot, snapshotName } from '../../pipeline/snapshot/index.ts';
import { syntheticCrawl } from './synthetic-crawl.ts';

const START = Date.UTC(2026, 10, 16);
const root = process.argv[2];
const result = await publishSnapshot({
  root,
  name: snapshotName('weekly', START),
  kind: 'weekly',
  startedAt: START,
  endedAt: START + 3_600_000,
  config: { test: 'kill' },
  documents: syntheticCrawl(Number(process.argv[3] ?? 3000), 12, START),
  clock: manualClock(START + 7_200_000),
});
process.stdout.write(`${result.manifest.inputFingerprint}\n`);

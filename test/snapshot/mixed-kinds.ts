import { manualClock } from '../../pipeline/core/index.ts';
import { openPublication, snapshotName } from '../../pipeline/snapshot/index.ts';
import { publishWeek, source, WEEK1, WEEK2, week1, week2 } from './sample-crawl.ts';

/** The interval crawl between the sample weeks: 2026-11-17T1030Z, two of week one's documents again. */
export const INTERVAL = WEEK1 + 34.5 * 3_600_000;

/** The names publishMixedKinds publishes, oldest first. */
export const MIXED_NAMES = ['2026-11-16', '2026-11-17T1030Z', '2026-11-23'] as const;

/** Publishes both sample weeks and, between them, one interval snapshot under `root`. */
export async function publishMixedKinds(root: string): Promise<void> {
  await publishWeek(root, WEEK1, source(week1()));
  const publication = await openPublication({
    root,
    name: snapshotName('interval', INTERVAL),
    kind: 'interval',
    startedAt: INTERVAL,
    endedAt: INTERVAL + 600_000,
    config: {},
    documents: source(week1().slice(0, 2)),
    clock: manualClock(INTERVAL + 3_600_000),
  });
  await publication.commit([]);
  await publishWeek(root, WEEK2, source(week2()));
}

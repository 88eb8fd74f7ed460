/**
 * The live schedule's cost per publish: `nextSchedule` over a kernel whose every document holds a
 * full history (HISTORY_LIMIT observations a slot apart, one change in three), half of them
 * observed, under the default strategy; and the JSON each entry's state takes in schedule.parquet.
 */
import { loadavg } from 'node:os';
import type { ScheduleEntry } from '../../pipeline/core/index.ts';
import {
  HISTORY_LIMIT,
  liveStrategy,
  nextSchedule,
  SLOT_MS,
  writeLiveState,
} from '../../pipeline/schedule/index.ts';

const DOCUMENTS = 20_000;

export default async function bench(): Promise<void> {
  const at = Date.UTC(2026, 0, 5);
  const history = {
    start: at - (HISTORY_LIMIT + 1) * SLOT_MS,
    minutes: Array.from({ length: HISTORY_LIMIT }, () => SLOT_MS / 60_000),
    changed: Array.from({ length: HISTORY_LIMIT }, (_, i) => (i % 3 === 0 ? '1' : '0')).join(''),
  };
  const state = writeLiveState({ state: { rate: 1e-8 }, history });
  const previous: ScheduleEntry[] = Array.from({ length: DOCUMENTS }, (_, i) => ({
    url: `http://d${i}.example/`,
    level: 4,
    intervalMs: SLOT_MS,
    nextDue: at,
    strategy: 'cho-irregular',
    state,
  }));
  const started = performance.now();
  const next = nextSchedule({
    previous,
    observations: previous
      .filter((_, i) => i % 2 === 0)
      .map((e, i) => ({ url: e.url, changed: i % 3 === 0 })),
    observedAt: at,
    strategy: liveStrategy(),
  });
  const ms = performance.now() - started;
  const chars = next.reduce((sum, e) => sum + e.state.length, 0) / DOCUMENTS;
  process.stdout.write(
    `| documents | observed | nextSchedule | per observed document | state per document | heap |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n` +
      `| ${DOCUMENTS} | ${DOCUMENTS / 2} | ${ms.toFixed(0)} ms | ${((1000 * ms) / (DOCUMENTS / 2)).toFixed(0)} µs | ${chars.toFixed(0)} chars | ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB |\n` +
      `\nload average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
  );
}

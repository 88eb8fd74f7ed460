import type { ChangeHistory } from '../histories/types.ts';
import { clampInterval, MONTH } from '../strategies/intervals.ts';
import type { ObservationLog } from '../strategies/observation-log.ts';
import type { Bounds, Strategy } from '../strategies/types.ts';
import type { Tally } from './tally.ts';

/** How a replay is run: the span evaluated from each document's start, bounds, first interval. */
export interface ReplaySettings {
  readonly span: number;
  readonly bounds: Bounds;
  readonly initial: number;
}

/** Per-month counts of one strategy (month m = [start + m·30 d, start + (m+1)·30 d)). */
export interface MonthlyCounts {
  readonly captured: Float64Array;
  readonly downloads: Float64Array;
}

/** The end of the evaluated span of a document. */
export function evaluatedEnd(doc: ChangeHistory, span: number): number {
  return Math.min(doc.end, doc.start + span);
}

/** Real changes within the evaluated span. */
export function realChanges(doc: ChangeHistory, end: number): number {
  let n = doc.changes.length;
  while (n > 0 && doc.changes[n - 1] > end) n--;
  return n;
}

/**
 * Replays one strategy on one document: downloads at start (the baseline), then every interval
 * the strategy answers, until the span ends. An observation captures a change when at least one
 * real change happened since the previous download (several count as one). Adds into `tally`
 * and, when given, `monthly`; `log` is scratch space reused across replays.
 */
export function replay(
  doc: ChangeHistory,
  strategy: Strategy,
  settings: ReplaySettings,
  tally: Tally,
  log: ObservationLog,
  monthly?: MonthlyCounts,
): void {
  const end = evaluatedEnd(doc, settings.span);
  const changes = doc.changes;
  const real = realChanges(doc, end);
  const truth = { meanChangeInterval: real === 0 ? Number.POSITIVE_INFINITY : (end - doc.start) / real };
  const { bounds } = settings;
  let interval = clampInterval(settings.initial, bounds);
  let state = strategy.init(interval);
  let t = doc.start;
  let next = 0;
  let captured = 0;
  log.reset(doc.start);
  for (;;) {
    const at = t + interval;
    if (at > end) break;
    let changed = false;
    while (next < real && changes[next] <= at) {
      next++;
      changed = true;
    }
    if (changed) captured++;
    if (monthly) {
      const m = Math.min(monthly.downloads.length - 1, Math.floor((at - doc.start) / MONTH));
      monthly.downloads[m]++;
      if (changed) monthly.captured[m]++;
    }
    log.push(at, changed);
    const decision = strategy.next({ history: log, interval, state, bounds, truth });
    interval = clampInterval(decision.interval, bounds);
    state = decision.state;
    t = at;
  }
  tally.documents += 1;
  tally.changes += real;
  tally.captured += captured;
  tally.downloads += log.length;
}

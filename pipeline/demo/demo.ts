import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CrawlConfig, Logger, Progress, SnapshotKind } from '../core/index.ts';
import { clockStartingAt, parseResolveRule, readUriList } from '../core/index.ts';
import { runExpansion, runTick, runWeeklySnapshot, writeExpansion } from '../observe/index.ts';
import { DAY, defaultStrategy, SLOT_MS, SLOTS_PER_WEEK, WEEK } from '../schedule/index.ts';
import type { SimWeb } from '../simweb/index.ts';
import { listSnapshots, openDuckDb, sqlString } from '../snapshot/index.ts';
import { type CaptureMeasures, captureMeasures } from './truth-comparison.ts';

export interface DemoOptions {
  /** Where seeds/ and snapshots/ go: a folder prepareDemoFolder emptied. */
  readonly out: string;
  readonly sim: SimWeb;
  /** Full weeks observed: a weekly snapshot and its 15 sub-weekly ticks each, then a closing weekly snapshot. */
  readonly weeks: number;
  /** Virtual time to start at; the first week starts at the next 00:00 UTC (a week boundary). */
  readonly start: number;
  /** Crawl settings; `resolve` and `allowPrivate` are set to reach the simulated Web. */
  readonly config: CrawlConfig;
  readonly logger: Logger;
  readonly say: (line: string) => void;
  /** Live progress of each phase (done/total, rate, ETA), where there is a terminal to redraw it on. */
  readonly progress?: (label: string) => Progress;
}

/** How one strategy's weekly snapshots and ticks caught the simulated Web's real changes. */
export interface StrategyMeasures {
  readonly strategy: string;
  readonly snapshotsDir: string;
  readonly measures: CaptureMeasures;
}

export interface DemoResult {
  /** The default strategy's snapshots: the observatory the portal shows. */
  readonly snapshotsDir: string;
  readonly kernel: number;
  /** Snapshots in snapshotsDir's catalogue (index.json), per kind: weekly, interval, expand. */
  readonly published: ReadonlyArray<readonly [kind: SnapshotKind, count: number]>;
  /** The default strategy first, then the one it is compared with. */
  readonly strategies: readonly StrategyMeasures[];
  readonly weeklyOnly: CaptureMeasures;
}

/** What the default strategy is compared with: the observatory paper's levels. */
export const COMPARED_STRATEGY = 'dyldo';

/** One series of weekly snapshots and ticks on the shared virtual clock, under one strategy. */
interface Series {
  readonly strategy: string;
  readonly root: string;
  /** The comparison series crawls the kernel only: the measures count kernel documents alone. */
  readonly adaptiveRounds: number;
}

async function kernelObservations(
  snapshotsDir: string,
): Promise<{ all: Map<string, number[]>; weekly: Map<string, number[]> }> {
  const session = await openDuckDb();
  try {
    const { connection } = session;
    const reader = await connection.runAndReadAll(
      `SELECT url, epoch_ms(fetched_at), kind = 'weekly'
       FROM read_parquet(${sqlString(join(snapshotsDir, '*', 'documents.parquet'))})
       WHERE segment = 'kernel' AND (error IS NULL OR error = 'parse')`,
    );
    const all = new Map<string, number[]>();
    const weekly = new Map<string, number[]>();
    for (const [url, at, isWeekly] of reader.getRows() as Array<[string, number | bigint, boolean]>) {
      const t = Number(at);
      all.set(url, [...(all.get(url) ?? []), t]);
      if (isWeekly) weekly.set(url, [...(weekly.get(url) ?? []), t]);
    }
    return { all, weekly };
  } finally {
    session.close();
  }
}

/** A week's ticks of one strategy in words: how many documents were re-visited, in which ticks. */
function revisits(strategy: string, ticks: readonly { slot: number; documents: number }[]): string {
  if (ticks.length === 0)
    return `re-visits (${strategy}): none were due yet (every kernel document starts at once a week)`;
  const documents = ticks.reduce((sum, t) => sum + t.documents, 0);
  const each = ticks.map((t) => `${t.slot}: ${t.documents}`).join(', ');
  return `re-visits (${strategy}): ${documents} ${documents === 1 ? 'document' : 'documents'} in ${ticks.length} of the week's ${SLOTS_PER_WEEK - 1} ticks (documents per tick, by tick: ${each})`;
}

/**
 * The observatory end to end on the simulated Web, on a virtual clock: expand the kernel, then
 * `weeks` weekly snapshots, each followed by the 15 sub-weekly ticks of its week, scheduled by the
 * default strategy and, in a second series of kernel-only crawls, by DyLDO's levels; finally how
 * each caught the simulated Web's real changes (its ground truth).
 */
export async function runDemo(o: DemoOptions): Promise<DemoResult> {
  const { sim, say } = o;
  // weeks count from 00:00 UTC of the weekly snapshot's day, so the demo's weeks start there too
  const start = Math.ceil(o.start / DAY) * DAY;
  await mkdir(join(o.out, 'seeds'), { recursive: true });
  const snapshotsDir = join(o.out, 'snapshots');
  const config: CrawlConfig = {
    ...o.config,
    resolve: [parseResolveRule(sim.resolveRule)],
    allowPrivate: true,
  };
  const base = { config, logger: o.logger };

  const coreFile = join(o.out, 'seeds', 'core.txt');
  await sim.writeCoreSeeds(coreFile);
  const seeds = await readUriList(coreFile);
  const expandAt = start - 60_000;
  sim.setClock(expandAt);
  say(`expand: 2-hop crawl from the ${seeds.length} core seeds`);
  const expandClock = clockStartingAt(expandAt);
  const expansion = await runExpansion({
    seeds,
    repeat: 1,
    hops: 2,
    workDir: join(o.out, 'seeds', '.expand'),
    ...base,
    clock: expandClock,
    progress: o.progress && ((i) => o.progress!(`expand: crawl ${i}: documents crawled`)),
    // published like `observatory expand` does, for the Reproductions page's per-round figures
    publish: { root: snapshotsDir, announce: (folder) => say(`  expansion crawl published: ${folder}`) },
  });
  const kernelFile = join(o.out, 'seeds', 'kernel.txt');
  const iso = new Date(expandAt).toISOString();
  await writeExpansion(
    expansion,
    { kernel: kernelFile, report: join(o.out, 'seeds', 'kernel-report.json') },
    {
      seeds: seeds.length,
      startedAt: iso,
      endedAt: iso,
    },
  );
  const kernel = await readUriList(kernelFile);
  say(`  kernel: ${kernel.length} URIs on ${expansion.plds.length} PLDs -> ${kernelFile}`);

  // the same weeks twice, interleaved so that both series see the simulated Web at the same
  // moments: the default strategy (the observatory, with its adaptive crawl) and the comparison,
  // in a folder of its own
  const series: Series[] = [
    { strategy: defaultStrategy, root: snapshotsDir, adaptiveRounds: 1 },
    {
      strategy: COMPARED_STRATEGY,
      root: join(o.out, 'compare', COMPARED_STRATEGY, 'snapshots'),
      adaptiveRounds: 0,
    },
  ];
  const [main] = series;
  // `weeks` full weeks (a weekly snapshot and its 15 ticks each), closed by one more weekly snapshot
  for (let week = 0; week <= o.weeks; week++) {
    const weekStart = start + week * WEEK;
    for (const s of series) {
      sim.setClock(weekStart);
      const which = s === main ? 'weekly snapshot' : `weekly snapshot, ${s.strategy} series`;
      const weekly = await runWeeklySnapshot({
        root: s.root,
        kernel,
        adaptiveRounds: s.adaptiveRounds,
        strategy: s.strategy,
        ...base,
        clock: clockStartingAt(weekStart),
        progress: o.progress?.(`week ${week + 1}: ${which}: documents crawled`),
        publishProgress: o.progress && (() => o.progress!(`week ${week + 1}: ${which}: publish %`)),
      });
      if (weekly.status !== 'published')
        throw new Error(`weekly snapshot of week ${week + 1} (${s.strategy}): ${weekly.status}`);
      if (s !== main) continue;
      const c = weekly.snapshot.manifest.counts;
      say(
        `week ${week + 1}: weekly snapshot ${weekly.snapshot.name}: ${c.documents} documents, ${c.statements} statements`,
      );
    }
    if (week === o.weeks) break;
    const ticks = new Map<Series, { slot: number; documents: number }[]>(series.map((s) => [s, []]));
    const total = (SLOTS_PER_WEEK - 1) * series.length;
    const progress = o.progress?.(`week ${week + 1}: ticks of both series`);
    let revisited = 0;
    for (let slot = 1; slot < SLOTS_PER_WEEK; slot++) {
      const at = weekStart + slot * SLOT_MS;
      for (const [i, s] of series.entries()) {
        sim.setClock(at);
        const tick = await runTick({
          root: s.root,
          strategy: s.strategy,
          ...base,
          clock: clockStartingAt(at),
        });
        if (tick.status === 'published') {
          ticks.get(s)!.push({ slot, documents: tick.due });
          revisited += tick.due;
        }
        const done = (slot - 1) * series.length + i + 1;
        progress?.[done === total ? 'finish' : 'update']({
          done,
          total,
          extra: { 'documents re-visited': revisited },
        });
      }
    }
    for (const [s, done] of ticks) say(`  ${revisits(s.strategy, done)}`);
  }

  const end = start + o.weeks * WEEK;
  const truth = new Map<string, number[]>();
  for (const record of sim.truth(end)) {
    truth.set(
      record.uri,
      record.changes.filter((c) => c.graphChanged).map((c) => Date.parse(c.at)),
    );
  }
  // an hour of slack: fetched_at is the crawl's clock, a little after the slot's virtual moment
  const span = { start, end: end + 60 * 60_000 };
  const strategies: StrategyMeasures[] = [];
  let weeklyOnly: CaptureMeasures | null = null;
  for (const s of series) {
    const observed = await kernelObservations(s.root);
    strategies.push({
      strategy: s.strategy,
      snapshotsDir: s.root,
      measures: captureMeasures(observed.all, truth, span),
    });
    weeklyOnly ??= captureMeasures(observed.weekly, truth, span);
  }
  // counted from the catalogue, not alongside: what index.json lists is what was published
  const catalogue = await listSnapshots(snapshotsDir);
  const published = (['weekly', 'interval', 'expand'] as const).map(
    (kind) => [kind, catalogue.filter((e) => e.kind === kind).length] as const,
  );
  return {
    snapshotsDir,
    kernel: kernel.length,
    published,
    strategies,
    weeklyOnly: weeklyOnly!,
  };
}

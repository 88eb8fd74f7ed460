import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CrawlConfig, Logger } from '../core/index.ts';
import { clockStartingAt, parseResolveRule, readUriList } from '../core/index.ts';
import { runExpansion, writeExpansion } from '../crawl/index.ts';
import { runTick, runWeeklySnapshot } from '../observe/index.ts';
import { DAY, SLOT_MS, SLOTS_PER_WEEK, WEEK } from '../schedule/index.ts';
import type { SimWeb } from '../simweb/index.ts';
import { openDuckDb, sqlString } from '../snapshot/index.ts';
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
}

export interface DemoResult {
  readonly snapshotsDir: string;
  readonly kernel: number;
  readonly published: number;
  readonly adaptive: CaptureMeasures;
  readonly weeklyOnly: CaptureMeasures;
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

/**
 * The observatory end to end on the simulated Web, on a virtual clock: expand the kernel, then
 * `weeks` weekly snapshots, each followed by the 15 sub-weekly ticks of its week, and finally a
 * comparison with the simulated Web's ground truth.
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
  const base = { config, policy: 'longest-first' as const, logger: o.logger };

  const coreFile = join(o.out, 'seeds', 'core.txt');
  await sim.writeCoreSeeds(coreFile);
  const seeds = await readUriList(coreFile);
  const expandAt = start - 60_000;
  sim.setClock(expandAt);
  say(`expand: 2-hop crawl around ${seeds.length} core seeds`);
  const expansion = await runExpansion({
    seeds,
    repeat: 1,
    hops: 2,
    workDir: join(o.out, 'seeds', '.expand'),
    ...base,
    clock: clockStartingAt(expandAt),
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

  let published = 0;
  // `weeks` full weeks (a weekly snapshot and its 15 ticks each), closed by one more weekly snapshot
  for (let week = 0; week <= o.weeks; week++) {
    const weekStart = start + week * WEEK;
    sim.setClock(weekStart);
    const weekly = await runWeeklySnapshot({
      root: snapshotsDir,
      kernel,
      adaptiveRounds: 1,
      ...base,
      clock: clockStartingAt(weekStart),
    });
    if (weekly.status !== 'published')
      throw new Error(`weekly snapshot of week ${week + 1}: ${weekly.status}`);
    published++;
    const c = weekly.snapshot.manifest.counts;
    say(
      `week ${week + 1}: weekly snapshot ${weekly.snapshot.name}: ${c.documents} documents, ${c.statements} statements`,
    );
    if (week === o.weeks) break;
    const ticks: string[] = [];
    for (let slot = 1; slot < SLOTS_PER_WEEK; slot++) {
      const at = weekStart + slot * SLOT_MS;
      sim.setClock(at);
      const tick = await runTick({ root: snapshotsDir, ...base, clock: clockStartingAt(at) });
      if (tick.status === 'published') {
        published++;
        ticks.push(`${slot}:${tick.due}`);
      }
    }
    say(
      `  ticks (slot:documents): ${ticks.length > 0 ? ticks.join(' ') : 'none due yet (every document starts at 1x a week)'}`,
    );
  }

  const end = start + o.weeks * WEEK;
  const truth = new Map<string, number[]>();
  for (const record of sim.truth(end)) {
    truth.set(
      record.uri,
      record.changes.filter((c) => c.graphChanged).map((c) => Date.parse(c.at)),
    );
  }
  const observed = await kernelObservations(snapshotsDir);
  // an hour of slack: fetched_at is the crawl's clock, a little after the slot's virtual moment
  const span = { start, end: end + 60 * 60_000 };
  return {
    snapshotsDir,
    kernel: kernel.length,
    published,
    adaptive: captureMeasures(observed.all, truth, span),
    weeklyOnly: captureMeasures(observed.weekly, truth, span),
  };
}

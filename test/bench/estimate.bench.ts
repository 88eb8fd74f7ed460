/**
 * `npm run bench estimate`: the crawl-time estimator against real crawls. The real crawler crawls
 * the simulated Web (at its realistic latency) a dozen times, with URL lists of varied size and
 * PLD mix and a few crawler settings; before each crawl, the baseline and our estimator predict
 * its duration from the snapshots published so far; after it, the crawl is published and becomes
 * history. Prints the table of docs/estimation.md and the error summary. A few minutes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CrawlConfig, recordedConfig, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { createCrawlTools, readJournalDocuments, runCrawl } from '../../pipeline/crawl/index.ts';
import { seededRandom } from '../../pipeline/schedule/histories/random.ts';
import { estimateCrawl, readHistoryStats } from '../../pipeline/schedule/index.ts';
import { type SimPld, startSimWeb, type TruthRecord } from '../../pipeline/simweb/index.ts';
import { publishSnapshot, snapshotName } from '../../pipeline/snapshot/index.ts';
import { simConfig } from '../crawl/sim-crawl.ts';

/** The evaluation's crawler: short delays and caps so that a dozen crawls take minutes, not days. */
const BASE: Partial<CrawlConfig> = {
  concurrency: 16,
  delayMs: 100,
  crawlDelayCapMs: 1000,
  timeoutMs: 6000,
};

interface Recipe {
  readonly name: string;
  /** Only builds history: not in the table (nothing to estimate from yet). */
  readonly warmUp?: boolean;
  readonly config?: Partial<CrawlConfig>;
  urls(w: WebView): string[];
}

interface WebView {
  readonly docs: readonly TruthRecord[];
  readonly byPld: ReadonlyMap<string, readonly TruthRecord[]>;
  readonly plds: readonly SimPld[];
  readonly random: () => number;
  readonly previous: ReadonlyMap<string, readonly string[]>;
}

function sample<T>(items: readonly T[], n: number, random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

const uris = (docs: readonly TruthRecord[]) => docs.map((d) => d.uri);
const ofPlds = (w: WebView, plds: readonly SimPld[], perPld: number) =>
  plds.flatMap((p) => uris((w.byPld.get(p.domain) ?? []).slice(0, perPld)));

const RECIPES: readonly Recipe[] = [
  { name: 'warm-up: 300 uniform', warmUp: true, urls: (w) => uris(sample(w.docs, 300, w.random)) },
  { name: 'uniform 150', urls: (w) => uris(sample(w.docs, 150, w.random)) },
  { name: 'uniform 600', urls: (w) => uris(sample(w.docs, 600, w.random)) },
  {
    name: 'PLD-starved: 3 PLDs x 60',
    urls: (w) => ofPlds(w, w.plds.filter((p) => p.kind === 'data' && p.docCount >= 60).slice(1, 4), 60),
  },
  {
    name: 'Crawl-delay-heavy',
    urls: (w) => [
      ...ofPlds(
        w,
        w.plds.filter((p) => p.robots === 'crawl-delay' && p.docCount > 1),
        25,
      ),
      ...uris(sample(w.docs, 80, w.random)),
    ],
  },
  {
    name: 'one URI on each of 120 PLDs',
    urls: (w) => ofPlds(w, sample(w.plds, 120, w.random), 1),
  },
  {
    name: '303-redirect PLDs',
    urls: (w) => ofPlds(w, w.plds.filter((p) => p.style === 'see-other' && p.docCount > 2).slice(0, 12), 25),
  },
  {
    name: 'uniform 300, concurrency 4',
    config: { concurrency: 4 },
    urls: (w) => uris(sample(w.docs, 300, w.random)),
  },
  {
    name: 'uniform 400, round-robin',
    config: { policy: 'round-robin' },
    urls: (w) => uris(sample(w.docs, 400, w.random)),
  },
  {
    name: 'small PLDs (2-15 documents)',
    urls: (w) =>
      ofPlds(
        w,
        w.plds.filter((p) => p.docCount >= 2 && p.docCount <= 15),
        15,
      ),
  },
  { name: 'revisit of "uniform 600"', urls: (w) => [...(w.previous.get('uniform 600') ?? [])] },
  {
    name: 'uniform 300, delay 250 ms',
    config: { delayMs: 250 },
    urls: (w) => uris(sample(w.docs, 300, w.random)),
  },
];

/** The PLD whose last document ended last in the crawl in `dir`. */
async function boundingPld(dir: string): Promise<string> {
  let last = { pld: '', end: Number.NEGATIVE_INFINITY };
  for await (const { record } of readJournalDocuments(dir)) {
    const end = record.fetchedAt + record.durationMs;
    if (end > last.end) last = { pld: record.pld, end };
  }
  return last.pld;
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(0)}%`;
const sec = (ms: number) => (ms / 1000).toFixed(1);

export default async function (): Promise<void> {
  const sim = await startSimWeb({ seed: 7, docs: 4000, plds: 250, latencyScale: 1 });
  const root = await mkdtemp(join(tmpdir(), 'estimate-bench-'));
  const docs = sim.truth().filter((r) => r.kind === 'document');
  const byPld = new Map<string, TruthRecord[]>();
  for (const d of docs) byPld.set(d.pld, [...(byPld.get(d.pld) ?? []), d]);
  const previous = new Map<string, readonly string[]>();
  const view: WebView = { docs, byPld, plds: sim.web.plds, random: seededRandom(11), previous };
  const rows: string[] = [];
  const ours: number[] = [];
  const theirs: number[] = [];
  let covered = 0;
  const started = performance.now();
  try {
    for (const [i, recipe] of RECIPES.entries()) {
      const urls = [...new Set(recipe.urls(view))];
      previous.set(recipe.name, urls);
      const config = simConfig(sim, { ...BASE, ...recipe.config });
      const t0 = performance.now();
      const stats = await readHistoryStats(root);
      const estimate = estimateCrawl({ urls, stats, config });
      const estimateMs = performance.now() - t0;
      const dir = join(root, `crawl-${i}`);
      const tools = createCrawlTools(config, systemClock);
      const startedAt = Date.now();
      const begin = performance.now();
      await runCrawl({
        plan: {
          seeds: urls,
          maxDepth: 0,
          maxDocuments: urls.length,
          maxRounds: 1,
          segmentFor: () => 'kernel',
        },
        config,
        fetcher: tools.fetcher,
        loadContext: tools.loadContext,
        dir,
        clock: systemClock,
        logger: silentLogger,
      }).finally(() => tools.close());
      const actual = performance.now() - begin;
      const bound = await boundingPld(dir);
      await publishSnapshot({
        root,
        name: snapshotName('interval', Date.UTC(2026, 0, 5) + i * 3_600_000),
        kind: 'interval',
        startedAt,
        endedAt: startedAt + Math.round(actual),
        config: recordedConfig(config),
        documents: () => readJournalDocuments(dir),
        clock: systemClock,
      });
      await rm(dir, { recursive: true, force: true });
      if (recipe.warmUp) continue;
      const errOurs = estimate.p50Ms / actual - 1;
      const errBase = estimate.baseline.makespanMs / actual - 1;
      ours.push(Math.abs(errOurs));
      theirs.push(Math.abs(errBase));
      const inRange = actual >= estimate.p10Ms && actual <= estimate.p90Ms ? 'yes' : 'no';
      if (inRange === 'yes') covered++;
      const rank = estimate.bounding.findIndex((b) => b.pld === bound);
      const named = `${bound}${stats.plds.has(bound) ? '' : ' (new)'}: ${rank < 0 ? 'not named' : `#${rank + 1}`}`;
      rows.push(
        `| ${recipe.name} | ${urls.length} | ${estimate.plds} (${estimate.unknownPlds} new) | ${sec(actual)} | ${sec(estimate.baseline.makespanMs)} | ${pct(errBase)} | ${sec(estimate.p50Ms)} | ${pct(errOurs)} | ${sec(estimate.p10Ms)}-${sec(estimate.p90Ms)} | ${inRange} | ${named} | ${estimateMs.toFixed(0)} |`,
      );
      process.stderr.write(`${rows.at(-1)}\n`);
    }
  } finally {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  process.stdout.write(
    '| crawl | URIs | PLDs | actual s | baseline s | baseline error | ours P50 s | our error | ours P10-P90 s | actual in P10-P90 | PLD that ended last: our rank | estimate ms |\n',
  );
  process.stdout.write('|---|---|---|---|---|---|---|---|---|---|---|---|\n');
  process.stdout.write(`${rows.join('\n')}\n\n`);
  process.stdout.write(
    `median absolute error: baseline ${pct(median(theirs))}, ours ${pct(median(ours))}; worst: baseline ${pct(Math.max(...theirs))}, ours ${pct(Math.max(...ours))}; actual within our P10-P90: ${covered} of ${rows.length}\n`,
  );
  process.stdout.write(
    `${rows.length} estimated crawls (+1 warm-up) in ${((performance.now() - started) / 1000).toFixed(0)} s; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`,
  );
}

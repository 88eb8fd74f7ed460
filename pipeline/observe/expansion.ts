import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Clock, CrawlConfig, Logger, Progress } from '../core/index.ts';
import {
  claimOutputFolder,
  folderHolds,
  makeDirectory,
  ObservatoryError,
  type OwnedFolder,
  prepareOwnedFolder,
  writeFileAtomic,
} from '../core/index.ts';
import {
  type CrawlOptions,
  type CrawlResult,
  type CrawlStatsSnapshot,
  createCrawlTools,
  isRdfDocument,
  readJournalDocuments,
  runCrawl,
} from '../crawl/index.ts';
import { snapshotName } from '../snapshot/index.ts';
import { refuseNewerRoot } from './newer-root.ts';
import { expansionPublisher } from './publish-expansion.ts';
import { withRunLock } from './run-state.ts';

export interface ExpansionOptions {
  readonly seeds: readonly string[];
  /** Independent crawls whose RDF documents are united (the paper used 10). */
  readonly repeat: number;
  /** Hops from the seeds (the paper used 2). */
  readonly hops: number;
  /**
   * False: every crawl runs until no URI within `hops` is left, whatever round the round-end rule
   * moves it to. True: rounds 0 to `hops` only, as LDSpider counts hops (the round-end rule's tail
   * moved into the last round is fetched, its links are not followed).
   */
  readonly roundsAreHops?: boolean;
  /** Keep each crawl's WARC files (with config.warc) beside its journal (implied by `publish`). */
  readonly archive?: boolean;
  /** Journals of the crawls go to `<workDir>/crawl-<i>`; a rerun resumes them. */
  readonly workDir: string;
  readonly config: CrawlConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly progress?: (crawl: number) => Progress;
  readonly signal?: AbortSignal;
  /**
   * The snapshots folder each finished crawl is published into, as the snapshot of kind `expand`
   * named by its start; `announce` hears of each folder published now. The expansion holds the
   * folder's run lock throughout, as weekly and tick runs do: one crawl at a time per snapshots
   * folder. Absent: nothing is published, no lock is taken, and the crawls are named `crawl-<i>`.
   */
  readonly publish?: { readonly root: string; readonly announce?: (folder: string) => void };
  /** Crawls in place of runCrawl (the distributed mode's coordinator); the crawl's name identifies it. */
  readonly crawl?: (options: CrawlOptions, name: string) => Promise<CrawlResult>;
}

/** One finished crawl of an expansion. */
export interface ExpansionCrawl {
  /** 1 to `of`. */
  readonly crawl: number;
  readonly of: number;
  readonly name: string;
  /** The folder of its journal. */
  readonly dir: string;
  /** The folder of its WARC files; null when config.warc is off. */
  readonly archive: string | null;
  /** Rounds it could have (round 0 holds the seeds): `hops + 1`, or Infinity. */
  readonly maxRounds: number;
  /** Start and end of the crawl (epoch ms), fixed once, so that a rerun sees the same crawl. */
  readonly startedAt: number;
  readonly endedAt: number;
  /** When crawl 1 of this expansion started: the same for all its crawls and across reruns, it names the run. */
  readonly runStartedAt: number;
  readonly stats: CrawlStatsSnapshot;
}

/** When a crawl of the expansion started and ended, kept beside its journal across reruns. */
interface CrawlTimes {
  readonly startedAt: number;
  readonly endedAt?: number;
}

const TIMES_FILE = 'expansion-crawl.json';

async function readTimes(dir: string): Promise<CrawlTimes | null> {
  const file = join(dir, TIMES_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const times = JSON.parse(text) as CrawlTimes;
  if (!Number.isFinite(times?.startedAt))
    throw new ObservatoryError('corrupt', `${file} has no startedAt; remove the expansion's work folder`);
  return times;
}

export interface ExpansionResult {
  /** False when the signal stopped it; the journals keep what was done. */
  readonly complete: boolean;
  /** URIs (as asked for) that dereferenced to RDF in any crawl, sorted. */
  readonly kernel: readonly string[];
  readonly crawls: readonly CrawlStatsSnapshot[];
  /** Kernel URIs per PLD, most first. */
  readonly plds: ReadonlyArray<{ readonly pld: string; readonly documents: number }>;
}

/**
 * The kernel expansion: `repeat` independent breadth-first crawls of `hops` hops from the core
 * seeds; the kernel is the union of URIs that dereferenced to RDF. Each crawl is published once it
 * has finished, before the next starts (`publish`). A run lock held by another live process is
 * `locked`, as for a weekly snapshot run without waiting.
 */
export async function runExpansion(o: ExpansionOptions): Promise<ExpansionResult> {
  const { publish } = o;
  if (!publish) return expand(o);
  return withRunLock(publish.root, async () => {
    await refuseNewerRoot(publish.root);
    return expand(o);
  });
}

async function expand(o: ExpansionOptions): Promise<ExpansionResult> {
  // by default the hop limit bounds the crawl, not the rounds: the round-end rule moves a round's
  // tail to the next round, and a last round at `hops` never follows that tail's links
  const maxRounds = o.roundsAreHops ? o.hops + 1 : Number.POSITIVE_INFINITY;
  const publish =
    o.publish &&
    expansionPublisher(o.publish.root, o, { seeds: o.seeds.length, hops: o.hops }, o.publish.announce);
  // marked as the expansion's own once its run may start (a refused run leaves no folder behind)
  await prepareOwnedFolder(workFolder(o.workDir), { empty: false });
  const kernel = new Map<string, string>();
  const crawls: CrawlStatsSnapshot[] = [];
  let runStartedAt = Number.NaN;
  for (let i = 1; i <= o.repeat; i++) {
    const dir = join(o.workDir, `crawl-${i}`);
    // the start is written before the first fetch: a resumed crawl keeps its name and start
    let times = await readTimes(dir);
    if (!times) {
      times = { startedAt: o.clock.now() };
      makeDirectory(dir, 'the crawl folder');
      await writeFileAtomic(join(dir, TIMES_FILE), JSON.stringify(times));
    }
    // a rerun passes crawl 1 again (resumed or finished), so its recorded start names the run
    if (i === 1) runStartedAt = times.startedAt;
    const name = publish ? snapshotName('expand', times.startedAt, i) : `crawl-${i}`;
    const archive = (o.archive || publish) && o.config.warc ? join(dir, 'warc') : null;
    // each crawl gets a fresh fetcher: robots.txt and politeness state as on separate runs
    const tools = createCrawlTools(o.config, o.clock, archive ? { dir: archive, prefix: name } : undefined);
    o.logger.info({ crawl: i, of: o.repeat, dir }, 'expansion crawl');
    const crawl = o.crawl ?? runCrawl;
    const result = await crawl(
      {
        plan: {
          seeds: o.seeds,
          maxDepth: o.hops,
          maxRounds,
          maxDocuments: Number.POSITIVE_INFINITY,
          segmentFor: () => 'expand',
        },
        config: o.config,
        fetcher: tools.fetcher,
        loadContext: tools.loadContext,
        dir,
        clock: o.clock,
        logger: o.logger,
        progress: o.progress?.(i),
        signal: o.signal,
        archive: tools.archive,
      },
      name,
    ).finally(() => tools.close());
    if (!result.complete) return { complete: false, kernel: [], crawls, plds: [] };
    let endedAt = times.endedAt;
    if (endedAt === undefined) {
      // a resumed crawl's clock may read before its start (the same --now again): never end before it
      endedAt = Math.max(o.clock.now(), times.startedAt);
      await writeFileAtomic(join(dir, TIMES_FILE), JSON.stringify({ ...times, endedAt }));
    }
    crawls.push(result.stats);
    await publish?.({
      crawl: i,
      of: o.repeat,
      name,
      dir,
      archive,
      maxRounds,
      startedAt: times.startedAt,
      endedAt,
      runStartedAt,
      stats: result.stats,
    });
    for await (const { record } of readJournalDocuments(dir, { logger: o.logger })) {
      if (isRdfDocument(record)) kernel.set(record.url, record.pld);
    }
  }
  const perPld = new Map<string, number>();
  for (const pld of kernel.values()) perPld.set(pld, (perPld.get(pld) ?? 0) + 1);
  return {
    complete: true,
    kernel: [...kernel.keys()].sort(),
    crawls,
    plds: [...perPld.entries()]
      .map(([pld, documents]) => ({ pld, documents }))
      .sort((a, b) => b.documents - a.documents || (a.pld < b.pld ? -1 : 1)),
  };
}

/** The expansion's work folder, marked by a file as the folder `expand` removes when done. */
function workFolder(path: string): OwnedFolder {
  return { path: resolve(path), marker: '.observatory-expand', command: 'expand', option: '--work' };
}

/**
 * Claims `workDir` (`--work`) for the expansion's journals, before anything runs: the folder is
 * removed once the kernel is written, so it must be new, empty or an earlier expansion's (marked,
 * or holding only the `crawl-<i>` folders that versions before the mark wrote), and must neither be
 * nor hold the snapshots root, nor hold `files` (the seeds, the kernel and the report):
 * `--work ~` must not remove a home folder (it did). Refused `invalid_input`.
 */
export function claimExpansionWork(
  workDir: string,
  o: { readonly root: string; readonly files: readonly string[] },
): OwnedFolder {
  const { marker, command, option } = workFolder(workDir);
  // inside the snapshots root it may lie (a kernel kept there puts the default beside it): the
  // marker rule keeps it out of every folder there that holds anything
  const work = claimOutputFolder(workDir, { option, command, marker, unmarked: /^crawl-\d+$/ });
  for (const file of [o.root, ...o.files]) {
    if (folderHolds(work.path, file))
      throw new ObservatoryError(
        'invalid_input',
        `--work ${work.path} holds ${resolve(file)}, which expand reads or writes; \`observatory expand\` removes its work folder when done: give it a folder of its own`,
      );
  }
  return work;
}

/** Removes the expansion's journals once the kernel is written: the claimed folder, marker and all. */
export async function removeExpansionWork(work: OwnedFolder): Promise<void> {
  await rm(work.path, { recursive: true, force: true });
}

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EarlierObservation } from '../archive/index.ts';
import type {
  Clock,
  CrawlConfig,
  Logger,
  PreviousObservation,
  Progress,
  ScheduleEntry,
} from '../core/index.ts';
import { collectGarbage, ignoreFailure, recordedConfig, withCleanup } from '../core/index.ts';
import type { CrawlOptions, CrawlPlan, CrawlResult } from '../crawl/index.ts';
import { createCrawlTools, JOURNAL_FILE, readJournalDocuments, runCrawl } from '../crawl/index.ts';
import { liveStrategy, type Strategy } from '../schedule/index.ts';
import {
  openPreviousContent,
  openPublication,
  type PublishedSnapshot,
  SNAPSHOT_SCHEMA_VERSION,
} from '../snapshot/index.ts';
import { publishedConfig } from './published-config.ts';
import { type RunState, runDir, saveRunState } from './run-state.ts';

const MIB = 1024 * 1024;

/** What every observation run needs besides its own plan. */
export interface ObserveContext {
  /** The snapshots folder. */
  readonly root: string;
  readonly config: CrawlConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
  readonly progress?: Progress;
  /** Progress of the publish that follows the crawl, created when the publish starts (its clock starts then). */
  readonly publishProgress?: () => Progress;
  /** The re-visit strategy that moves the kernel's schedule on (default: the schedule stage's defaultStrategy). */
  readonly strategy?: string;
  /** Crawls in place of runCrawl (the distributed mode's coordinator); the run's name identifies the crawl. */
  readonly crawl?: (options: CrawlOptions, name: string) => Promise<CrawlResult>;
}

/** The strategy a run moves the schedule on with: the one it started with, else the context's. */
export function runStrategy(run: RunState, ctx: ObserveContext): Strategy {
  return liveStrategy(run.strategy ?? ctx.strategy);
}

/**
 * The journal lines of a run's URL lists (`round` lines: each round's URLs with their depths), the
 * documents dropped: what a crawl that resumes on them fetches again, in the rounds it began.
 */
async function roundLines(journal: string): Promise<string[]> {
  const text = await readFile(journal, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => {
    if (!line.startsWith('{"t":"round"')) return false;
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false; // torn by the kill
    }
  });
}

/**
 * The run as this version crawls it. A run journaled under another snapshot schema (by an older
 * version, killed before an upgrade) has its documents fetched again: its journal keeps the URL
 * lists of the rounds it began and loses the documents, its archive is removed and its end
 * forgotten, and the crawl resumes on that (same name, start and URL list). Resumed as it was, the
 * documents the old parser read would be published as this schema's beside the ones this version
 * read (the lifetime benchmark found a schema-4 snapshot whose TriG documents fetched before the
 * upgrade had lost their graph names, and those fetched after kept them); crawled from its seeds
 * alone, what the old crawl had fetched further out would be in no snapshot (it found 15 such
 * documents). A run whose folder is published already (the publish killed after it put the folder
 * in place) keeps its journal: its publish is completed.
 */
async function underThisSchema(root: string, run: RunState, logger: Logger): Promise<RunState> {
  if (run.schemaVersion === SNAPSHOT_SCHEMA_VERSION) return run;
  if (run.endedAt !== undefined && (await publishedConfig(root, run)) !== null) return run;
  const { endedAt: _, ...rest } = run;
  const fresh: RunState = { ...rest, schemaVersion: SNAPSHOT_SCHEMA_VERSION };
  const dir = join(runDir(root, run.name), 'crawl');
  const rounds = await roundLines(join(dir, JOURNAL_FILE));
  await rm(dir, { recursive: true, force: true });
  if (rounds.length > 0) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, JOURNAL_FILE), rounds.map((line) => `${line}\n`).join(''));
  }
  await saveRunState(root, fresh);
  const was = run.schemaVersion === undefined ? 'an older version' : `snapshot schema ${run.schemaVersion}`;
  logger.warn({ run: run.name, was }, 'run journaled by another version: its documents are fetched again');
  process.stderr.write(
    `observatory: run ${run.name} was journaled by ${was}; the documents of its rounds are fetched again under schema ${SNAPSHOT_SCHEMA_VERSION}\n`,
  );
  return fresh;
}

/** An earlier observation's archived record as the archive refers to it (absent: none). */
function archivedIn(
  root: string,
  observation: Pick<PreviousObservation, 'snapshot' | 'finalUrl' | 'contentSha256' | 'warc'> | undefined,
): EarlierObservation | undefined {
  if (!observation?.warc) return undefined;
  const { finalUrl, snapshot, warc, contentSha256 } = observation;
  return { url: finalUrl, dir: join(root, snapshot), pointer: warc, contentSha256 };
}

/**
 * Crawls a run (resuming its journal if it was interrupted), then publishes it with the schedule
 * that `schedule` derives from change detection's verdict per URL (null: nothing to compare).
 * Returns null when the signal stopped the crawl; the run stays in `.incomplete/` for the next invocation.
 */
export async function crawlAndPublish(
  given: RunState,
  plan: CrawlPlan,
  schedule: (changes: ReadonlyMap<string, boolean | null>) => readonly ScheduleEntry[],
  ctx: ObserveContext,
): Promise<PublishedSnapshot | null> {
  const { config, clock, logger } = ctx;
  const run = await underThisSchema(ctx.root, given, logger);
  const dir = join(runDir(ctx.root, run.name), 'crawl');
  const archive = join(dir, 'warc');
  // the observations published before this run began: what its re-visits ask about and carry over,
  // and the archived records its unchanged answers are revisits of
  const revisits =
    config.conditional || config.warc
      ? await openPreviousContent(ctx.root, plan.seeds, new Date(run.startedAt).toISOString())
      : undefined;
  const tools = createCrawlTools(config, clock, {
    dir: archive,
    prefix: run.name,
    earlier: (url) => archivedIn(ctx.root, revisits?.previous(url)),
    archived: revisits && (async (url) => archivedIn(ctx.root, await revisits.archived(url))),
  });
  const crawl = ctx.crawl ?? runCrawl;
  // closing after a failed crawl (a full disk) may fail too: the crawl's error is the one thrown
  const crawled = await withCleanup(
    () =>
      crawl(
        {
          plan,
          config,
          fetcher: tools.fetcher,
          loadContext: tools.loadContext,
          dir,
          clock,
          logger,
          progress: ctx.progress,
          signal: ctx.signal,
          revisits,
          archive: tools.archive,
        },
        run.name,
      ),
    async () => {
      await tools.close();
      revisits?.close();
    },
  );
  if (!crawled.complete) return null;
  collectGarbage();
  // what the publish starts on, and the crawl's peak: beside the publish phases' peaks, it says
  // which of the two sets the process's
  const memory = {
    rssMiB: Math.round(process.memoryUsage.rss() / MIB),
    peakRssMiB: Math.round((process.resourceUsage().maxRSS * 1024) / MIB),
  };
  logger.info(
    {
      snapshot: run.name,
      documents: crawled.stats.documents,
      statements: crawled.stats.statements,
      ...memory,
    },
    'crawl finished',
  );
  // the end time is fixed once, so that a publish rerun after a crash sees the same input; a
  // resumed run's clock may read before the run's start (a logical clock given the same --now
  // again, a wall clock stepped back), and a run never ends before it started
  const ended = run.endedAt !== undefined ? run : { ...run, endedAt: Math.max(clock.now(), run.startedAt) };
  if (run.endedAt === undefined) await saveRunState(ctx.root, ended);
  const publication = await openPublication({
    root: ctx.root,
    name: run.name,
    kind: run.kind,
    startedAt: run.startedAt,
    endedAt: ended.endedAt!,
    config: (await publishedConfig(ctx.root, ended)) ?? {
      ...recordedConfig(config),
      strategy: runStrategy(run, ctx).name,
      plan: { maxDepth: plan.maxDepth, maxDocuments: plan.maxDocuments, maxRounds: plan.maxRounds },
    },
    documents: () => readJournalDocuments(dir, { logger }),
    archive,
    clock,
    log: logger,
    progress: ctx.publishProgress?.(),
  });
  let entries: readonly ScheduleEntry[];
  try {
    entries = schedule(await publication.changes());
  } catch (error) {
    await ignoreFailure(() => publication.close());
    throw error;
  }
  const published = await publication.commit(entries);
  await rm(runDir(ctx.root, run.name), { recursive: true, force: true });
  return published;
}

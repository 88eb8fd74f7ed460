import { join } from 'node:path';
import { type CrawlConfig, type ErrorCode, recordedSettings, TLS_ERROR_CODES } from '../../core/index.ts';
import {
  listSnapshots,
  openDuckDb,
  parquetFileName,
  readManifest,
  readTableSql,
} from '../../snapshot/index.ts';
import { RETRIED_ERRORS, retryAfterMs, retryWaitsMs } from '../../web/index.ts';
import { calibrateCpu, type PastCrawl } from './calibrate.ts';
import type { FetchSample, HistoryStats, PldProfile } from './profile.ts';
import { emptyHistory } from './profile.ts';

/** Error codes that end a fetch before the document's own request is sent. */
const NOT_SENT = new Set<string>([
  'robots',
  'robots_unavailable',
  'dns',
  'blocked_address',
  ...TLS_ERROR_CODES,
  'bad_url',
]);

/** The politeness a past crawl ran with, from its manifest (defaults when it did not record them). */
type PastConfig = Pick<
  CrawlConfig,
  'delayMs' | 'crawlDelayCapMs' | 'timeoutMs' | 'maxAttempts' | 'concurrency' | 'policy'
>;

/** Recent crawls replayed to learn the per-document processing time (calibrate.ts). */
const CALIBRATION_CRAWLS = 4;

interface Row {
  readonly url: string;
  readonly host: string;
  readonly fetchedAt: number;
  readonly durationMs: number;
  readonly redirects: number;
  /** Another fetch downloaded its final URL: it sent only its redirect hops (status and error are that fetch's). */
  readonly handedOver: boolean;
  readonly error: string | null;
  readonly retryAfter: string | null;
  /** The answer's Date header (ms), what an HTTP-date in its Retry-After is read against; null without one. */
  readonly answeredAt: number | null;
}

/**
 * A Crawl-delay shows as a PLD whose consecutive fetches are never closer than well above our
 * delay, and evenly spaced: the crawler serves a PLD with a long delay as soon as it is ready, while
 * a PLD that merely waited for a free slot shows gaps of every length. Undefined: too few gaps to tell.
 */
function crawlDelayOf(all: readonly Row[], delayMs: number): number | null | undefined {
  // a URL queued after another fetch downloaded its final URL sent nothing: no request start to measure
  const rows = all.filter((r) => !(r.handedOver && r.redirects === 0));
  const gaps: number[] = [];
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1];
    if (!a.handedOver && a.error !== null && NOT_SENT.has(a.error)) continue;
    gaps.push(rows[i].fetchedAt - (a.fetchedAt + a.durationMs));
  }
  if (gaps.length < 3) return undefined;
  gaps.sort((x, y) => x - y);
  const min = gaps[0];
  const median = gaps[Math.floor(gaps.length / 2)];
  return min > 1.5 * delayMs + 100 && min >= 0.8 * median ? min : null;
}

/**
 * One document's fetch with the waits of its crawl taken out: the gate's delay before every
 * request after the first (robots.txt of a host's first document included) and the penalty before
 * a retry. What is left, spread over the requests, is time on the wire.
 */
function sampleOf(row: Row, robotsFirst: boolean, delayMs: number, past: PastConfig): FetchSample {
  const notSent = !row.handedOver && row.error !== null && NOT_SENT.has(row.error);
  const retries =
    !row.handedOver && !notSent && row.error !== null && RETRIED_ERRORS.has(row.error as ErrorCode)
      ? past.maxAttempts - 1
      : 0;
  const requests = row.handedOver ? row.redirects : notSent ? 0 : 1 + row.redirects + retries;
  // an HTTP-date is read against the answer's own Date, as the crawler read it when the answer came;
  // without one, against the fetch's end: the last answer of a retried fetch came long after its start
  const retryAfter = retryAfterMs(row.retryAfter, row.answeredAt ?? row.fetchedAt + row.durationMs);
  const timedOut = row.error === 'timeout';
  if (requests === 0) return { requests, retries, retryAfterMs: null, requestMs: row.durationMs, timedOut };
  const sent = requests + (robotsFirst ? 1 : 0);
  const waits =
    (sent - 1 - retries) * delayMs + retryWaitsMs(retries, delayMs, retryAfter, past.crawlDelayCapMs);
  return {
    requests,
    retries,
    retryAfterMs: retryAfter,
    requestMs: Math.max(1, (row.durationMs - waits) / sent),
    timedOut,
  };
}

/** Reads documents.parquet of one snapshot, ordered by PLD and start. */
async function readRows(folder: string): Promise<Map<string, Row[]>> {
  const manifest = await readManifest(folder);
  const session = await openDuckDb();
  try {
    const file = join(folder, parquetFileName('documents'));
    const documents = readTableSql(file, 'documents', manifest.schemaVersion, manifest);
    const reader = await session.connection.runAndReadAll(
      `SELECT pld, url, epoch_ms(fetched_at), duration_ms, coalesce(redirects, 0), downloaded_by <> url, error,
         headers['retry-after'], headers['date']
       FROM (${documents}) ORDER BY pld, fetched_at, url`,
    );
    const byPld = new Map<string, Row[]>();
    for (const [pld, url, at, duration, redirects, handedOver, error, retryAfter, date] of reader.getRows()) {
      const rows = byPld.get(pld as string) ?? [];
      byPld.set(pld as string, rows);
      rows.push({
        url: url as string,
        host: URL.parse(url as string)?.host ?? '',
        fetchedAt: Number(at),
        durationMs: Number(duration),
        redirects: Number(redirects),
        handedOver: handedOver === true,
        error: error as string | null,
        retryAfter: retryAfter as string | null,
        answeredAt: typeof date === 'string' && !Number.isNaN(Date.parse(date)) ? Date.parse(date) : null,
      });
    }
    return byPld;
  } finally {
    session.close();
  }
}

/**
 * Per-PLD service-time, redirect, retry and Crawl-delay statistics from the most recent
 * `maxSnapshots` published snapshots under `root` (all kinds). No snapshots: emptyHistory().
 */
export async function readHistoryStats(root: string, maxSnapshots = 8): Promise<HistoryStats> {
  const entries = (await listSnapshots(root)).slice(-maxSnapshots);
  if (entries.length === 0) return emptyHistory();
  const folders = entries.map((e) => join(root, e.name));
  const configs = await Promise.all(
    folders.map(async (f): Promise<PastConfig> => recordedSettings((await readManifest(f)).config).config),
  );
  // first the Crawl-delays, over every crawl: a crawl with too few fetches of a PLD to show its
  // Crawl-delay still waited for it, and its fetches must be read with that wait taken out. The rows
  // are read again below rather than held: eight snapshots of a whole kernel do not fit comfortably.
  const crawlDelays = new Map<string, number | null>();
  for (const [index, folder] of folders.entries()) {
    for (const [pld, rows] of await readRows(folder)) {
      // a Crawl-delay must show in every crawl that can tell: one crawl with short gaps disproves it
      const crawlDelay = crawlDelayOf(rows, configs[index].delayMs);
      if (crawlDelay === undefined) continue;
      const before = crawlDelays.get(pld);
      crawlDelays.set(
        pld,
        crawlDelay === null || before === null ? null : Math.min(before ?? crawlDelay, crawlDelay),
      );
    }
  }
  const samples = new Map<string, FetchSample[]>();
  const byUrl = new Map<string, FetchSample>();
  const durations = new Map<string, number>();
  const calibration: PastCrawl[] = [];
  for (const [index, entry] of entries.entries()) {
    const past = configs[index];
    const crawl: PastCrawl['plds'][number][] = [];
    for (const [pld, rows] of await readRows(folders[index])) {
      const delayMs = Math.max(past.delayMs, Math.min(crawlDelays.get(pld) ?? 0, past.crawlDelayCapMs));
      const seenHosts = new Set<string>();
      const list = samples.get(pld) ?? [];
      samples.set(pld, list);
      const mine: FetchSample[] = [];
      const firsts: boolean[] = [];
      for (const row of rows) {
        const robotsFirst = !seenHosts.has(row.host);
        seenHosts.add(row.host);
        const sample = sampleOf(row, robotsFirst, delayMs, past);
        mine.push(sample);
        firsts.push(robotsFirst);
        list.push(sample);
        byUrl.set(row.url, sample);
        durations.set(pld, (durations.get(pld) ?? 0) + row.durationMs);
      }
      crawl.push({ pld, delayMs, samples: mine, robotsFirst: firsts });
    }
    if (index >= entries.length - CALIBRATION_CRAWLS) {
      calibration.push({
        concurrency: past.concurrency,
        policy: past.policy,
        crawlDelayCapMs: past.crawlDelayCapMs,
        timeoutMs: past.timeoutMs,
        durationMs: Date.parse(entry.endedAt) - Date.parse(entry.startedAt),
        plds: crawl,
      });
    }
  }
  const plds = new Map<string, PldProfile>();
  for (const [pld, list] of samples) {
    plds.set(pld, {
      pld,
      samples: list,
      crawlDelayMs: crawlDelays.get(pld) ?? null,
      meanDurationMs: (durations.get(pld) ?? 0) / list.length,
    });
  }
  return {
    plds,
    urls: byUrl,
    cpuMs: calibrateCpu(calibration),
    snapshots: entries.map((e) => e.name),
  };
}

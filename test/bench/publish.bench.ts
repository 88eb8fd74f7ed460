/**
 * Publish speed: statements per second for a whole publish (staging, sorting, change detection,
 * Parquet, gzipped N-Quads, stats, checksums) of a crawl journal with a heavy-tailed document size
 * mix (journal statements, before the triples repeated in a document are merged), the time of each
 * phase, peak RSS, and the ratio to a plain DuckDB COPY of the same rows: the published
 * quads (read back from quads.parquet into a DuckDB table first, not timed) copied to a zstd Parquet
 * file, in the same process with the same memory limit. A second weekly snapshot of the same crawl
 * adds change detection against the first. BENCH_PUBLISH_STATEMENTS sets the size (default 4
 * million; 16 million is a DyLDO-size week).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { readJournalDocuments } from '../../pipeline/crawl/index.ts';
import { duckDbMemoryLimit } from '../../pipeline/snapshot/duckdb-session.ts';
import { publishWeek } from '../snapshot/sample-crawl.ts';
import { plainCopySeconds } from './plain-copy.ts';

const STATEMENTS = Number(process.env.BENCH_PUBLISH_STATEMENTS ?? 4_000_000);
const START = Date.UTC(2026, 10, 16);

/** Writes the crawl's journal in a child process, as a crawl does, so that its memory is not counted here. */
function writeJournal(dir: string): { documents: number; statements: number } {
  const script = new URL('../snapshot/write-synthetic-journal.ts', import.meta.url).pathname;
  const out = execFileSync(process.execPath, [script, dir, String(STATEMENTS), String(START)], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as { documents: number; statements: number };
}

/** A logger that keeps each publish phase's milliseconds, CPU milliseconds and the peak RSS (MiB) when it ended. */
function phaseLog(): { log: pino.Logger; phases: Map<string, [number, number, number]> } {
  const phases = new Map<string, [number, number, number]>();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        const entry = JSON.parse(line) as {
          msg?: string;
          phase: string;
          ms: number;
          cpuMs: number;
          peakRssMiB: number;
        };
        if (entry.msg === 'publish phase') phases.set(entry.phase, [entry.ms, entry.cpuMs, entry.peakRssMiB]);
      }
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), phases };
}

const peakRss = () => Math.round(process.resourceUsage().maxRSS / 1024);

export default async function (): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-publish-'));
  try {
    const crawl = join(root, 'crawl');
    const written = writeJournal(crawl);
    process.stdout.write(
      `journal: ${written.documents} documents, ${written.statements} statements (heavy-tailed sizes); ` +
        `DuckDB memory_limit ${duckDbMemoryLimit()}\n\n`,
    );
    const runs = [];
    for (const week of [0, 1]) {
      const start = START + week * 7 * 86_400_000;
      const { log, phases } = phaseLog();
      const t0 = performance.now();
      const published = await publishWeek(root, start, () => readJournalDocuments(crawl), undefined, { log });
      runs.push({ published, seconds: (performance.now() - t0) / 1000, phases });
    }
    // the COPY sessions come after both publishes, so that their memory is not in the publish's peak
    const publishPeak = peakRss();
    process.stdout.write(
      '| snapshot | journal statements/s | published rows | seconds | plain COPY s | publish / COPY | data.nq.gz bytes | phases: s / CPU s (peak RSS so far) |\n',
    );
    process.stdout.write('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n');
    for (const { published, seconds, phases } of runs) {
      const copy = await plainCopySeconds(join(published.folder, 'quads.parquet'), root);
      const m = published.manifest;
      const nq = m.files.find((f) => f.name === 'data.nq.gz')!.bytes;
      const phaseText = [...phases]
        .map(
          ([p, [ms, cpuMs, peak]]) =>
            `${p} ${(ms / 1000).toFixed(1)} / ${(cpuMs / 1000).toFixed(1)} (${peak} MiB)`,
        )
        .join(', ');
      process.stdout.write(
        `| ${m.name} | ${Math.round(written.statements / seconds)} | ${m.counts.statements} | ${seconds.toFixed(1)} | ${copy.toFixed(2)} | ${(seconds / copy).toFixed(1)} | ${nq} | ${phaseText} |\n`,
      );
    }
    process.stdout.write(
      `\npeak RSS: publishing ${publishPeak} MiB, with the COPY sessions after ${peakRss()} MiB\n`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

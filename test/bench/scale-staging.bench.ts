/**
 * What a publish's staging holds, and whose it is: the crawl journals named by BENCH_STAGING_JOURNALS
 * (comma-separated paths, e.g. the journals of `npm run bench scale`'s weeks, kept with `ln` while
 * they run) or, by default, synthetic journals of 4 and 16 million statements (the publish bench's
 * heavy-tailed documents), staged one after the other as a publish stages them (same DuckDB
 * settings, a database file, the default memory limit). While each loads, the process's RSS, V8's
 * heap, Node's external memory and DuckDB's own accounting (`duckdb_memory()`, what counts against
 * `memory_limit`) are sampled every 200 ms; the table gives them at the RSS peak, and the rest
 * (RSS minus the RSS before staging, DuckDB's and V8's growth) is what DuckDB allocates outside its
 * limit: the JSON reader's buffers and parsed lines.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { pino } from 'pino';
import { JOURNAL_FILE, scanJournal } from '../../pipeline/crawl/journal.ts';
import { duckDbMemoryLimit } from '../../pipeline/snapshot/duckdb-session.ts';
import { stageCrawl } from '../../pipeline/snapshot/staging.ts';

const SYNTHETIC = [4_000_000, 16_000_000];
const MIB = 2 ** 20;

const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

interface Sample {
  rss: number;
  duckdb: number;
  heap: number;
  external: number;
}

/** Writes a synthetic journal in a child process (its memory is not this one's) and returns its path. */
function syntheticJournal(dir: string, statements: number): string {
  const script = new URL('../snapshot/write-synthetic-journal.ts', import.meta.url).pathname;
  execFileSync(process.execPath, [script, dir, String(statements), String(Date.UTC(2026, 10, 16))]);
  return join(dir, JOURNAL_FILE);
}

async function stage(
  journal: string,
  dir: string,
): Promise<{ before: Sample; peak: Sample; seconds: number }> {
  const instance = await DuckDBInstance.create(join(dir, 'publish.duckdb'), {
    memory_limit: duckDbMemoryLimit(),
    temp_directory: join(dir, 'publish.duckdb.tmp'),
    preserve_insertion_order: 'false',
  });
  const connection = await instance.connect();
  const probe = await instance.connect();
  const sample = async (): Promise<Sample> => {
    const [[duckdb]] = (
      await probe.runAndReadAll('SELECT sum(memory_usage_bytes)::DOUBLE FROM duckdb_memory()')
    ).getRows();
    const { heapUsed, external } = process.memoryUsage();
    return { rss: rssMiB(), duckdb: Number(duckdb) / MIB, heap: heapUsed / MIB, external: external / MIB };
  };
  try {
    const before = await sample();
    let peak = before;
    let done = false;
    const sampling = (async () => {
      while (!done) {
        const now = await sample();
        if (now.rss > peak.rss) peak = now;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const start = performance.now();
    await stageCrawl(connection, { file: journal }, '', join(dir, 'clean.ndjson'), pino({ level: 'warn' }));
    const seconds = (performance.now() - start) / 1000;
    done = true;
    await sampling;
    return { before, peak, seconds };
  } finally {
    probe.closeSync();
    connection.closeSync();
    instance.closeSync();
  }
}

export default async function (): Promise<void> {
  const given = process.env.BENCH_STAGING_JOURNALS?.split(',').filter(Boolean);
  process.stdout.write(
    `DuckDB memory_limit ${duckDbMemoryLimit()}\n\n| journal | documents | longest line MB | staging s | RSS before MiB | peak RSS MiB | DuckDB at peak MiB | V8 heap at peak MiB | external at peak MiB | rest (outside DuckDB's limit) MiB |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n`,
  );
  for (const source of given ?? SYNTHETIC.map(String)) {
    const dir = await mkdtemp(join(tmpdir(), 'bench-staging-'));
    try {
      const journal = given ? source : syntheticJournal(dir, Number(source));
      const scan = await scanJournal(journal);
      const { before, peak, seconds } = await stage(journal, dir);
      const rest = peak.rss - before.rss - (peak.duckdb - before.duckdb) - (peak.heap - before.heap);
      const name = given ? source : `synthetic, ${Number(source) / 1e6} million statements`;
      const row = [
        name,
        scan.docLines,
        (scan.longestLine / 1e6).toFixed(1),
        seconds.toFixed(0),
        ...[before.rss, peak.rss, peak.duckdb, peak.heap, peak.external, rest].map((v) => v.toFixed(0)),
      ];
      process.stdout.write(`| ${row.join(' | ')} |\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * Parse + write throughput of the rdf stage on one core: a large N-Triples file and the same
 * graph as Turtle (prefixes, `;` and `,` lists, blank nodes, language tags, datatypes) are parsed
 * with parseDocument and written as N-Quads to /dev/null, exactly as the crawler and the
 * publisher use them (both are read by the fast readers, ntriples-reader.ts and turtle-reader.ts,
 * which n3 backs up); serdi converts the same files to N-Quads in the same run for the ratio.
 * BENCH_STATEMENTS sets the size (default 1,000,000). Target (issue #14): at least 0.5x serdi.
 * Both sides are measured the same way: CPU seconds of the whole process (user + system, all its
 * threads), BENCH_RUNS runs each (default 5), ours and serdi alternating so that a change in the
 * machine's load falls on both; the ratio is that of the medians, the best runs' ratio beside it.
 * Then the crawler's whole read of each file, in the same run: in this thread, parse + graph hash
 * (what processFetch did before parsing moved off the main thread) against readDocument (parse +
 * graph hash in a parse worker, statements packed back), each followed by the N-Quads write.
 */
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  createWriteStream,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Statement } from '../../pipeline/core/index.ts';
import { createNQuadsWriter, graphHash, parseDocument, readDocument } from '../../pipeline/rdf/index.ts';

const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 1_000_000);
const CHUNK = 10_000;
const EX = 'http://example.org/resource/';

/** The same graph in both syntaxes: five statements per resource. */
function generate(count: number, files: { ntriples: string; turtle: string }): void {
  const nt: string[] = [];
  const ttl: string[] = [
    '@prefix ex: <http://example.org/resource/> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n',
    '@prefix dct: <http://purl.org/dc/terms/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n',
  ];
  for (let i = 0; i < count / 5; i++) {
    const s = `<${EX}${i}>`;
    nt.push(
      `${s} <http://xmlns.com/foaf/0.1/name> "Name número ${i}"@en .\n`,
      `${s} <http://xmlns.com/foaf/0.1/knows> <${EX}${i + 1}> .\n`,
      `${s} <http://purl.org/dc/terms/title> "A \\"title\\" ${i}" .\n`,
      `${s} <http://example.org/resource/value> _:v${i} .\n`,
      `_:v${i} <http://example.org/resource/n> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`,
    );
    ttl.push(
      `ex:${i} foaf:name "Name número ${i}"@en ;\n  foaf:knows ex:${i + 1} ;\n`,
      `  dct:title "A \\"title\\" ${i}" ;\n  ex:value [ ex:n "${i}"^^xsd:integer ] .\n`,
    );
  }
  writeFileSync(files.ntriples, nt.join(''));
  writeFileSync(files.turtle, ttl.join(''));
}

/** Wall-clock and CPU seconds of one run. */
interface Timing {
  readonly wall: number;
  readonly cpu: number;
}

/** How a run reads the body: parse only, parse + hash in this thread, or the crawler's parse worker. */
type Reading = 'parse' | 'parse+hash' | 'worker';

async function read(
  reading: Reading,
  body: Buffer,
  contentType: string,
): Promise<{ statements: readonly Statement[]; error: string | null }> {
  const input = { body, contentType, documentUrl: 'http://example.org/dump' };
  if (reading === 'worker') {
    const result = await readDocument(input, { cpuBudgetMs: 3_600_000, maxContexts: 8, heapMb: 8192 });
    return { statements: result.statements, error: result.errorMessage };
  }
  const result = await parseDocument(input);
  if (reading === 'parse+hash') await graphHash(result.statements);
  return { statements: result.statements, error: result.errorMessage };
}

async function ours(
  file: string,
  contentType: string,
  reading: Reading = 'parse',
): Promise<Timing & { statements: number }> {
  const body = readFileSync(file);
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const result = await read(reading, body, contentType);
  const writer = createNQuadsWriter(createWriteStream('/dev/null'));
  for (let i = 0; i < result.statements.length; i += CHUNK) {
    await writer.writeDocument(result.statements.slice(i, i + CHUNK), 'http://example.org/dump');
  }
  await writer.end();
  const cpu = process.cpuUsage(cpuStart);
  if (result.error) throw new Error(`bench input did not parse: ${result.error}`);
  return {
    wall: (performance.now() - start) / 1000,
    cpu: (cpu.user + cpu.system) / 1e6,
    statements: result.statements.length,
  };
}

/** serdi converting the same file, timed by /usr/bin/time for its CPU seconds. */
function serdi(file: string, syntax: string): Timing {
  const devNull = openSync('/dev/null', 'w');
  const start = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '%U %S', 'serdi', '-i', syntax, '-o', 'nquads', file], {
    stdio: ['ignore', devNull, 'pipe'],
    encoding: 'utf8',
  });
  const wall = (performance.now() - start) / 1000;
  closeSync(devNull);
  const [user, system] = run.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  if (run.status !== 0) throw new Error(`serdi failed on ${file}: ${run.stderr}`);
  return { wall, cpu: user + system };
}

const rate = (statements: number, seconds: number) => Math.round(statements / seconds).toLocaleString('en');

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Ours and serdi on one file, RUNS times each, alternating: one row of the table. */
async function compare(syntax: 'ntriples' | 'turtle', file: string, contentType: string): Promise<string> {
  const our: number[] = [];
  const their: number[] = [];
  let statements = 0;
  let wall = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS; i++) {
    const run = await ours(file, contentType);
    statements = run.statements;
    wall = Math.min(wall, run.wall);
    our.push(run.cpu);
    their.push(serdi(file, syntax).cpu);
  }
  const [ourMedian, theirMedian] = [median(our), median(their)];
  const [ourBest, theirBest] = [Math.min(...our), Math.min(...their)];
  const rss = process.resourceUsage().maxRSS / 1024;
  return (
    `| ${syntax} | ${statements} | ${rate(statements, ourMedian)} | ${rate(statements, ourBest)} | ` +
    `${rate(statements, wall)} | ${rate(statements, theirMedian)} | ${rate(statements, theirBest)} | ` +
    `${theirMedian.toFixed(2)} s | **${(theirMedian / ourMedian).toFixed(2)}** | ${(theirBest / ourBest).toFixed(2)} | ` +
    `${rss.toFixed(0)} MiB |`
  );
}

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parse-bench-'));
  try {
    const files = { ntriples: join(dir, 'data.nt'), turtle: join(dir, 'data.ttl') };
    // generated in a function of its own, so that the text is garbage before anything is measured
    generate(STATEMENTS, files);
    // warm the JIT on a tenth of each file, so that the measurement is a crawl's steady state: each
    // syntax has a parser of its own (N-Triples the plain-form reader, Turtle the Turtle reader)
    for (const [syntax, contentType] of [
      ['ntriples', 'application/n-triples'],
      ['turtle', 'text/turtle'],
    ] as const) {
      const warm = readFileSync(files[syntax]);
      const tenth = warm.subarray(0, warm.length / 10);
      await parseDocument({
        body: tenth.subarray(0, tenth.lastIndexOf(' .\n') + 3),
        contentType,
        documentUrl: 'http://example.org/warm',
      });
    }
    const rows: string[] = [];
    for (const [syntax, contentType] of [
      ['ntriples', 'application/n-triples'],
      ['turtle', 'text/turtle'],
    ] as const) {
      rows.push(await compare(syntax, files[syntax], contentType));
    }
    process.stdout.write(
      `parse + write N-Quads, statements per CPU second of the whole process (user + system, all threads:\n` +
        `V8 collects garbage on a helper thread), ${RUNS} runs each, ours and serdi alternating; ratio =\n` +
        'serdi CPU / ours CPU, of the medians (bold) and of the best runs; ours (wall) is the best run\n\n' +
        '| syntax | statements | ours (CPU, median) | ours (CPU, best) | ours (wall) | serdi (CPU, median) | ' +
        'serdi (CPU, best) | serdi run (median) | ratio (median) | ratio (best) | peak RSS so far |\n' +
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n' +
        `${rows.join('\n')}\n\nload average: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}\n\n`,
    );
    const reads: string[] = [];
    for (const [syntax, contentType] of [
      ['ntriples', 'application/n-triples'],
      ['turtle', 'text/turtle'],
    ] as const) {
      const before = await ours(files[syntax], contentType, 'parse+hash');
      const now = await ours(files[syntax], contentType, 'worker');
      reads.push(
        `| ${syntax} | ${rate(before.statements, before.wall)} | ${rate(now.statements, now.wall)} | ` +
          `${(before.wall / now.wall).toFixed(2)} | ${rate(before.statements, before.cpu)} | ` +
          `${rate(now.statements, now.cpu)} | ${(before.cpu / now.cpu).toFixed(2)} |`,
      );
    }
    process.stdout.write(
      `the crawler's read (parse + graph hash + write), statements per second: in this thread\n` +
        'against a parse worker (ratio > 1: the worker is faster)\n\n' +
        '| syntax | in thread (wall) | worker (wall) | ratio (wall) | in thread (CPU) | worker (CPU) | ratio (CPU) |\n' +
        '| --- | --- | --- | --- | --- | --- | --- |\n' +
        `${reads.join('\n')}\n\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; load average at the end: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The crawl's memory budget (issue #31, item 6): a 30 MiB RDFa page served by 24 PLDs at once,
 * crawled by `observatory expand` (one crawl of the 24 URLs, nothing published) in its own
 * process under /usr/bin/time, once with `--memory-budget` at its default and once with a budget
 * too large to matter (the crawler as it was), in one run; prints both peak RSS and their ratio.
 * The pages are served with Content-Length by this process, one buffer for every host (relative
 * IRIs). `--parse-budget 2s` keeps the run to minutes: the RDFa parser needs minutes of CPU for
 * such a page and is stopped (too_complex) either way, while the bodies are held as they would be.
 *
 * Then what reading one body byte costs, by syntax, beside rdf/read-cost.ts's table: each syntax
 * parsed in a child process from a generated document of a few MB (the same graph), the peak RSS
 * it grew by and the heap its statements keep after a collection, per body byte.
 * BENCH_MEMORY_PAGE_MIB and BENCH_MEMORY_PLDS change the page and the PLDs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { CRAWL_DEFAULTS, type RdfFormat } from '../../pipeline/core/index.ts';
import { parseDocument, READ_COST } from '../../pipeline/rdf/index.ts';
import { startServer } from '../web/http-server.ts';

const PAGE_MIB = Number(process.env.BENCH_MEMORY_PAGE_MIB ?? 30);
const PLDS = Number(process.env.BENCH_MEMORY_PLDS ?? 24);
const MIB = 1024 * 1024;
const CLI = new URL('../../pipeline/cli.ts', import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;

/** An RDFa page of ~`mib` MiB: one element per resource, a name and a link each (relative IRIs). */
function rdfaPage(mib: number): Buffer {
  const parts = ['<!DOCTYPE html><html prefix="s: http://schema.org/"><head><title>t</title></head><body>\n'];
  let size = parts[0].length;
  for (let i = 0; size < mib * MIB; i++) {
    const div = `<div about="/r/${i}" typeof="s:Thing"><span property="s:name">Name number ${i} of a large page</span> <a rel="s:related" href="/r/${i + 1}">next</a></div>\n`;
    parts.push(div);
    size += div.length;
  }
  parts.push('</body></html>\n');
  return Buffer.from(parts.join(''));
}

/** The same graph (a type, a name, a link per resource) in one syntax; `[content type, text]`. */
function documentIn(format: RdfFormat, resources: number): [string, string] {
  const e = 'http://example.org/r/';
  const out: string[] = [];
  const each = (f: (i: number) => string) => {
    for (let i = 0; i < resources; i++) out.push(f(i));
  };
  switch (format) {
    case 'ntriples':
      each(
        (i) =>
          `<${e}${i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Thing> .\n` +
          `<${e}${i}> <http://schema.org/name> "Name number ${i} of a large page" .\n` +
          `<${e}${i}> <http://schema.org/related> <${e}${i + 1}> .\n`,
      );
      return ['application/n-triples', out.join('')];
    case 'turtle':
      out.push(`@prefix s: <http://schema.org/> .\n@prefix e: <${e}> .\n`);
      each((i) => `e:${i} a s:Thing ; s:name "Name number ${i} of a large page" ; s:related e:${i + 1} .\n`);
      return ['text/turtle', out.join('')];
    case 'rdfxml':
      out.push(
        '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:s="http://schema.org/">\n',
      );
      each(
        (i) =>
          `<s:Thing rdf:about="${e}${i}"><s:name>Name number ${i} of a large page</s:name><s:related rdf:resource="${e}${i + 1}"/></s:Thing>\n`,
      );
      out.push('</rdf:RDF>\n');
      return ['application/rdf+xml', out.join('')];
    case 'jsonld': {
      const graph = Array.from({ length: resources }, (_, i) => ({
        '@id': `${e}${i}`,
        '@type': 'http://schema.org/Thing',
        'http://schema.org/name': `Name number ${i} of a large page`,
        'http://schema.org/related': { '@id': `${e}${i + 1}` },
      }));
      return ['application/ld+json', JSON.stringify({ '@graph': graph })];
    }
    case 'rdfa':
      return ['text/html', rdfaPage((resources * 150) / MIB).toString()];
    default:
      throw new Error(`no generator for ${format}`);
  }
}

/** Resources per syntax: a few MB each; RDFa fewer, its parser being slow (minutes for 10 MB). */
const MEASURED: readonly [RdfFormat, number][] = [
  ['ntriples', 40_000],
  ['turtle', 40_000],
  ['rdfxml', 40_000],
  ['jsonld', 40_000],
  ['rdfa', 10_000],
];

/** In a child process: parses a document from `file` and prints its costs per body byte as JSON. */
async function measureReadCost(file: string, contentType: string): Promise<void> {
  const body = readFileSync(file);
  const gc = globalThis.gc as () => void;
  gc();
  const rssBefore = process.memoryUsage.rss();
  const maxBefore = process.resourceUsage().maxRSS * 1024;
  const heapBefore = getHeapStatistics().used_heap_size;
  const parsed = await parseDocument({ body, contentType, documentUrl: 'http://example.org/doc' });
  const peak = process.resourceUsage().maxRSS * 1024 - Math.max(rssBefore, maxBefore);
  gc();
  const kept = getHeapStatistics().used_heap_size - heapBefore;
  const result = {
    bytes: body.length,
    statements: parsed.statements.length,
    error: parsed.error,
    peakPerByte: Math.max(0, peak) / body.length,
    keptPerByte: kept / body.length,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Runs `args` under /usr/bin/time -v; its peak RSS (MiB), seconds and stdout. */
function timed(args: string[]): Promise<{ rssMiB: number; seconds: number; stdout: string; code: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-v', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      if (!rss) return reject(new Error(`no peak RSS from /usr/bin/time: ${stderr.slice(-2000)}`));
      resolve({
        rssMiB: Number(rss[1]) / 1024,
        seconds: (performance.now() - started) / 1000,
        stdout,
        code: code ?? -1,
      });
    });
  });
}

/** One `observatory expand` crawl of the seeds with `budgetMb`; its peak RSS and time. */
async function crawlWith(
  port: number,
  seedsFile: string,
  budgetMb: number,
): Promise<{ rssMiB: number; seconds: number }> {
  const work = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  try {
    const run = await timed([
      process.execPath,
      CLI,
      'expand',
      ...['--seeds', seedsFile, '--kernel', join(work, 'kernel.txt'), '--work', join(work, 'work')],
      // the page's links (none: its reading is stopped) lead nowhere: the server has only the pages
      ...['--repeat', '1', '--hops', '1', '--max-links', '1', '--no-publish'],
      ...['--resolve', `*=127.0.0.1:${port}`, '--allow-private', '--delay', '0'],
      ...['--parse-budget', '2s', '--memory-budget', String(budgetMb), '--log-level', 'silent'],
    ]);
    if (run.code !== 0) throw new Error(`observatory expand exited ${run.code}`);
    return run;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export default async function main(): Promise<void> {
  const page = rdfaPage(PAGE_MIB);
  let requests = 0;
  const server = await startServer((req, res) => {
    if (req.url !== '/page') return void res.writeHead(404).end();
    requests++;
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': page.length }).end(page);
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-seeds-'));
  const seeds = join(dir, 'core.txt');
  writeFileSync(seeds, Array.from({ length: PLDS }, (_, i) => `http://p${i}.org/page\n`).join(''));
  const budget = CRAWL_DEFAULTS.memoryBudgetMb;
  try {
    const without = await crawlWith(server.port, seeds, 1_000_000);
    const withBudget = await crawlWith(server.port, seeds, budget);
    process.stdout.write(
      `${PLDS} PLDs x one ${PAGE_MIB} MiB RDFa page (${(page.length / 1e6).toFixed(1)} MB), 64 fetch slots, ` +
        `${requests} page requests, load average ${loadavg()[0].toFixed(1)}\n\n` +
        '| memory budget | peak RSS MiB | seconds |\n| --- | ---: | ---: |\n' +
        `| none (1,000,000 MiB) | ${without.rssMiB.toFixed(0)} | ${without.seconds.toFixed(1)} |\n` +
        `| ${budget} MiB (the default) | ${withBudget.rssMiB.toFixed(0)} | ${withBudget.seconds.toFixed(1)} |\n\n` +
        `peak RSS with / without the budget: **${(withBudget.rssMiB / without.rssMiB).toFixed(2)}**\n\n`,
    );
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }

  process.stdout.write(
    '| syntax | body MB | statements | peak RSS growth / body byte | statements kept / body byte | READ_COST parse | READ_COST statements |\n' +
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n',
  );
  const documents = mkdtempSync(join(tmpdir(), 'bench-memory-documents-'));
  try {
    for (const [format, resources] of MEASURED) {
      const [contentType, text] = documentIn(format, resources);
      const file = join(documents, format);
      writeFileSync(file, text);
      const run = await timed([process.execPath, '--expose-gc', SELF, 'read-cost', file, contentType]);
      const r = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
      process.stdout.write(
        `| ${format}${r.error ? ` (${r.error})` : ''} | ${(r.bytes / 1e6).toFixed(1)} | ${r.statements} | ` +
          `${r.peakPerByte.toFixed(1)} | ${r.keptPerByte.toFixed(1)} | ${READ_COST[format].parse} | ${READ_COST[format].statements} |\n`,
      );
    }
  } finally {
    rmSync(documents, { recursive: true, force: true });
  }
}

if (import.meta.main && process.argv[2] === 'read-cost')
  await measureReadCost(process.argv[3], process.argv[4]);

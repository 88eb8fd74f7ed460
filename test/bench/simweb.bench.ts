/**
 * Simulated Web throughput and scale: small responses per second served by a server in its own
 * process (so the load generator does not share its event loop), the statements per second it
 * serves from a 200,000-document Web with heavy-tailed document sizes (`--doc-sizes dyldo`), the
 * render time of that Web's largest document, and the cost of generating a 100,000-document Web
 * (shape, every body once, the ground truth) with peak memory.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { RdfFormat } from '../../pipeline/core/index.ts';
import { documentState, isAlive, versionOf } from '../../pipeline/simweb/document-state.ts';
import { documentGraph, statementCount } from '../../pipeline/simweb/graph.ts';
import {
  type GeneratedWeb,
  generateWeb,
  SCENARIOS,
  TRUTH_ACCEPT,
  truthRecords,
} from '../../pipeline/simweb/index.ts';
import { hash32 } from '../../pipeline/simweb/random.ts';
import { serialize } from '../../pipeline/simweb/serialize.ts';
import { startSimWebProcess } from '../commands/cli-process.ts';

const DURATION_MS = 5000;
const CONNECTIONS = 64;

/** The heavy-tailed Web of a DyLDO-size week (issue #14). */
const DYLDO = { seed: 1, docs: 200_000, plds: 650, faults: 0, docSizes: 'dyldo' } as const;
const DYLDO_SAMPLE = 4000;

async function startServer(
  shape: readonly string[],
): Promise<{ port: number; stop: () => void; seeds: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'simweb-bench-'));
  const seeds = join(dir, 'core.txt');
  const server = await startSimWebProcess([
    '--port',
    '0',
    '--latency-scale',
    '0',
    '--faults',
    '0',
    ...shape,
    '--seeds-out',
    seeds,
  ]);
  return { port: server.port, seeds, stop: server.stop };
}

interface Load {
  rps: number;
  bytes: number;
  /** Statements served per second (when the URLs' counts are known). */
  sps: number;
}

async function load(
  pool: Pool,
  urls: readonly URL[],
  headers: Record<string, string>,
  statements: readonly number[] = [],
): Promise<Load> {
  let done = 0;
  let bytes = 0;
  let served = 0;
  const end = performance.now() + DURATION_MS;
  const worker = async (w: number) => {
    for (let i = w; performance.now() < end; i += CONNECTIONS) {
      const u = urls[i % urls.length];
      const res = await pool.request({
        path: u.pathname,
        method: 'GET',
        headers: { host: u.host, ...headers },
      });
      bytes += (await res.body.arrayBuffer()).byteLength;
      served += statements[i % urls.length] ?? 0;
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  const seconds = (performance.now() - start) / 1000;
  return { rps: done / seconds, bytes: bytes / done, sps: served / seconds };
}

/** A spread sample of the dyldo Web's live data documents, with the statements each serves. */
function dyldoSample(web: GeneratedWeb): { urls: URL[]; statements: number[] } {
  const urls: URL[] = [];
  const statements: number[] = [];
  const t = web.options.epochMs;
  for (let i = 0; urls.length < DYLDO_SAMPLE; i++) {
    const s = documentState(web, hash32(i, 0xbe) % web.docCount);
    if (s.address.vocabulary || !isAlive(s, t)) continue;
    urls.push(new URL(s.address.docUrl));
    statements.push(statementCount(web, s, versionOf(web, s, t)));
  }
  return { urls, statements };
}

/** Render time of the dyldo Web's largest document: its graph, then each streaming syntax. */
function largestDocument(web: GeneratedWeb): { doc: number; statements: number; ms: Record<string, number> } {
  let doc = 0;
  for (let d = 0, most = -1; d < web.docCount; d++) {
    const extra = documentState(web, d).extraStatements;
    if (extra > most) [doc, most] = [d, extra];
  }
  const s = documentState(web, doc);
  const version = versionOf(web, s, web.options.epochMs);
  const ms: Record<string, number> = {};
  let t = performance.now();
  const quads = documentGraph(web, s, version);
  ms.graph = performance.now() - t;
  for (const format of ['rdfxml', 'turtle', 'ntriples'] as RdfFormat[]) {
    t = performance.now();
    serialize(quads, format, s.address.docUrl);
    ms[format] = performance.now() - t;
  }
  return { doc, statements: quads.length, ms };
}

function generation(): {
  shapeMs: number;
  bodiesMs: number;
  truthMs: number;
  bodyBytes: number;
  records: number;
} {
  let t = performance.now();
  const web = generateWeb({ seed: 1, docs: 100_000, plds: 650 });
  const shapeMs = performance.now() - t;
  t = performance.now();
  let bodyBytes = 0;
  const at = web.options.epochMs + 180 * 86_400_000;
  for (let d = 0; d < web.docCount; d++) {
    const s = documentState(web, d);
    const quads = documentGraph(web, s, versionOf(web, s, at));
    bodyBytes += serialize(quads, s.format, s.address.docUrl).body.length;
  }
  const bodiesMs = performance.now() - t;
  t = performance.now();
  let records = 0;
  for (const _record of truthRecords(web, at)) records++;
  return { shapeMs, bodiesMs, truthMs: performance.now() - t, bodyBytes: bodyBytes / web.docCount, records };
}

/** Runs the simulated Web benchmark and prints its table. */
export default async function (): Promise<void> {
  const server = await startServer(['--docs', '5000', '--plds', '200']);
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: CONNECTIONS, pipelining: 1 });
  const { readFile } = await import('node:fs/promises');
  const docs = (await readFile(server.seeds, 'utf8'))
    .trim()
    .split('\n')
    .filter((s) => !s.includes('#'))
    .map((s) => new URL(s));
  const scenario = [new URL(SCENARIOS.ok.url)];
  const turtle = { accept: 'text/turtle' };
  await load(pool, scenario, turtle); // warm-up
  const fixed = await load(pool, scenario, turtle);
  const generated = await load(pool, docs, turtle);
  await pool.close();
  server.stop();
  const dyldoWeb = generateWeb(DYLDO);
  const sample = dyldoSample(dyldoWeb);
  const dyldoServer = await startServer([
    '--docs',
    String(DYLDO.docs),
    '--plds',
    String(DYLDO.plds),
    '--doc-sizes',
    DYLDO.docSizes,
  ]);
  const dyldoPool = new Pool(`http://127.0.0.1:${dyldoServer.port}`, {
    connections: CONNECTIONS,
    pipelining: 1,
  });
  // what the crawler asks: every RDF syntax, compressed where the publisher compresses
  const crawler = { accept: TRUTH_ACCEPT, 'accept-encoding': 'gzip' };
  const heavy = await load(dyldoPool, sample.urls, crawler, sample.statements);
  await dyldoPool.close();
  dyldoServer.stop();
  const largest = largestDocument(dyldoWeb);
  const gen = generation();
  const rss = process.resourceUsage().maxRSS / 1024;
  const rows = [
    [
      'small fixed document (scenario ok), responses/s',
      fixed.rps.toFixed(0),
      `${fixed.bytes.toFixed(0)} B each`,
    ],
    [
      'generated core documents (303s included), responses/s',
      generated.rps.toFixed(0),
      `${generated.bytes.toFixed(0)} B each`,
    ],
    [
      '200,000-document dyldo Web, sampled documents, responses/s',
      heavy.rps.toFixed(0),
      `${(heavy.bytes / 1024).toFixed(1)} KiB each (gzip where the PLD compresses)`,
    ],
    [
      '200,000-document dyldo Web, statements served/s',
      heavy.sps.toFixed(0),
      `${(sample.statements.reduce((a, b) => a + b, 0) / sample.statements.length).toFixed(0)} mean statements in the sample`,
    ],
    [
      `largest dyldo document (${largest.statements} statements): graph`,
      `${largest.ms.graph.toFixed(0)} ms`,
      `doc ${largest.doc}`,
    ],
    [
      'largest dyldo document: RDF/XML / Turtle / N-Triples',
      `${largest.ms.rdfxml.toFixed(0)} ms`,
      `${largest.ms.turtle.toFixed(0)} ms / ${largest.ms.ntriples.toFixed(0)} ms`,
    ],
    ['100,000-document Web: shape', `${gen.shapeMs.toFixed(0)} ms`, '650 PLDs'],
    [
      '100,000-document Web: every body once',
      `${(gen.bodiesMs / 1000).toFixed(1)} s`,
      `${gen.bodyBytes.toFixed(0)} B mean body`,
    ],
    ['100,000-document Web: ground truth', `${(gen.truthMs / 1000).toFixed(1)} s`, `${gen.records} records`],
    ['peak RSS of the benchmark process', `${rss.toFixed(0)} MiB`, ''],
    ['target: at least 2,000 small responses/s', fixed.rps >= 2000 ? 'met' : 'NOT MET', ''],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  for (const [a, b, c] of rows) process.stdout.write(`${a.padEnd(w)}  ${b.padStart(10)}  ${c}\n`);
}

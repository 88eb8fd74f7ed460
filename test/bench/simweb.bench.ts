/**
 * Simulated Web throughput and scale: small responses per second served by a server in its own
 * process (so the load generator does not share its event loop), and the cost of generating a
 * 100,000-document Web (shape, every body once, the ground truth) with peak memory.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { documentState, versionOf } from '../../pipeline/simweb/document-state.ts';
import { documentGraph } from '../../pipeline/simweb/graph.ts';
import { generateWeb, SCENARIOS, truthRecords } from '../../pipeline/simweb/index.ts';
import { serialize } from '../../pipeline/simweb/serialize.ts';
import { startSimWebProcess } from '../commands/cli-process.ts';

const DURATION_MS = 5000;
const CONNECTIONS = 64;

async function startServer(): Promise<{ port: number; stop: () => void; seeds: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'simweb-bench-'));
  const seeds = join(dir, 'core.txt');
  const server = await startSimWebProcess([
    '--port',
    '0',
    '--latency-scale',
    '0',
    '--faults',
    '0',
    '--docs',
    '5000',
    '--plds',
    '200',
    '--seeds-out',
    seeds,
  ]);
  return { port: server.port, seeds, stop: server.stop };
}

async function load(pool: Pool, urls: readonly URL[]): Promise<{ rps: number; bytes: number }> {
  let done = 0;
  let bytes = 0;
  const end = performance.now() + DURATION_MS;
  const worker = async (w: number) => {
    for (let i = w; performance.now() < end; i += CONNECTIONS) {
      const u = urls[i % urls.length];
      const res = await pool.request({
        path: u.pathname,
        method: 'GET',
        headers: { host: u.host, accept: 'text/turtle' },
      });
      bytes += (await res.body.arrayBuffer()).byteLength;
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  return { rps: (done * 1000) / (performance.now() - start), bytes: bytes / done };
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
  const server = await startServer();
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: CONNECTIONS, pipelining: 1 });
  const { readFile } = await import('node:fs/promises');
  const docs = (await readFile(server.seeds, 'utf8'))
    .trim()
    .split('\n')
    .filter((s) => !s.includes('#'))
    .map((s) => new URL(s));
  const scenario = [new URL(SCENARIOS.ok.url)];
  await load(pool, scenario); // warm-up
  const fixed = await load(pool, scenario);
  const generated = await load(pool, docs);
  await pool.close();
  server.stop();
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

/**
 * What conditional re-visits save: the demo's four weeks (expansion, weekly snapshots with their
 * 15 ticks each, on the virtual clock) on the demo's simulated Web without faults, run twice in one process,
 * with and without conditional requests (`conditional: false`). Reports, over every snapshot, the
 * bytes of the HTTP responses received (status line, headers and body as received, counted from
 * the snapshots' WARC response records), the requests, the 304s, and whether the two runs
 * published the same statements: every snapshot's quads, and its documents' hashes, EXCEPT both
 * ways.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { crawlConfig, silentLogger } from '../../pipeline/core/index.ts';
import { runDemo } from '../../pipeline/demo/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { listSnapshots, openDuckDb, sqlString } from '../../pipeline/snapshot/index.ts';

const WEEKS = 4;

interface Received {
  readonly bytes: number;
  readonly responses: number;
  readonly notModified: number;
}

/** Bytes of every HTTP response in a snapshots root's WARC files (WARC Content-Length of response records). */
function received(root: string, names: readonly string[]): Received {
  let bytes = 0;
  let responses = 0;
  let notModified = 0;
  for (const name of names) {
    for (const file of readdirSync(join(root, name)).filter((f) => f.endsWith('.warc.gz'))) {
      const text = gunzipSync(readFileSync(join(root, name, file))).toString('latin1');
      for (const m of text.matchAll(/WARC\/1\.1\r\n((?:[^\r\n]+\r\n)+)\r\n(HTTP\/1\.1 (\d{3}))?/g)) {
        if (!/\r\nWARC-Type: response\r\n/.test(`\r\n${m[1]}`)) continue;
        responses++;
        bytes += Number(/^Content-Length: (\d+)/im.exec(m[1])?.[1]);
        if (m[3] === '304') notModified++;
      }
    }
  }
  return { bytes, responses, notModified };
}

async function run(conditional: boolean): Promise<{ root: string; seconds: number }> {
  // the demo's Web without its faults, so that the two runs differ only by their requests
  const sim = await startSimWeb({ docs: 1500, plds: 120, latencyScale: 0.05, faults: 0 });
  const out = await mkdtemp(join(tmpdir(), `bench-conditional-${conditional ? 'on' : 'off'}-`));
  const started = performance.now();
  try {
    await runDemo({
      out,
      sim,
      weeks: WEEKS,
      start: sim.clock.now(),
      config: crawlConfig({
        delayMs: 20,
        timeoutMs: 3000,
        crawlDelayCapMs: 2000,
        maxAttempts: 1,
        conditional,
      }),
      logger: silentLogger,
      say: () => {},
    });
  } finally {
    await sim.close();
  }
  return { root: join(out, 'snapshots'), seconds: (performance.now() - started) / 1000 };
}

/** Rows of `columns` of `table` in one run's snapshot and not in the other's, both ways. */
async function differing(
  a: string,
  b: string,
  name: string,
  table: string,
  columns: string,
): Promise<number> {
  const session = await openDuckDb();
  try {
    const read = (root: string) =>
      `SELECT ${columns} FROM read_parquet(${sqlString(join(root, name, `${table}.parquet`))})`;
    const sql = `SELECT count(*) FROM ((${read(a)} EXCEPT ${read(b)}) UNION ALL (${read(b)} EXCEPT ${read(a)}))`;
    return Number((await session.connection.runAndReadAll(sql)).getRows()[0][0]);
  } finally {
    session.close();
  }
}

export default async function bench(): Promise<void> {
  const on = await run(true);
  const off = await run(false);
  const names = (await listSnapshots(on.root)).map((s) => s.name);
  const offNames = (await listSnapshots(off.root)).map((s) => s.name);
  let quadsDiffering = 0;
  let documentsDiffering = 0;
  for (const name of names) {
    quadsDiffering += await differing(
      on.root,
      off.root,
      name,
      'quads',
      'graph, subject, predicate, object, object_kind, datatype, lang',
    );
    documentsDiffering += await differing(
      on.root,
      off.root,
      name,
      'documents',
      'url, final_url, format, statements, content_sha256, graph_hash',
    );
  }
  const a = received(on.root, names);
  const b = received(off.root, offNames);
  const rows = [
    ['conditional', a, on.seconds],
    ['unconditional', b, off.seconds],
  ] as const;
  process.stdout.write(
    `${WEEKS} weeks of the demo (weekly snapshots and ticks), ${names.length} snapshots per run\n\n`,
  );
  process.stdout.write(
    '| re-visits | responses | 304 | response bytes | run s |\n| --- | ---: | ---: | ---: | ---: |\n',
  );
  for (const [label, r, s] of rows) {
    process.stdout.write(`| ${label} | ${r.responses} | ${r.notModified} | ${r.bytes} | ${s.toFixed(0)} |\n`);
  }
  process.stdout.write(
    `\nresponse bytes conditional / unconditional: ${(a.bytes / b.bytes).toFixed(3)}; ` +
      `same snapshot names: ${JSON.stringify(names) === JSON.stringify(offNames)}; ` +
      `quad rows differing: ${quadsDiffering}; document rows differing: ${documentsDiffering}; ` +
      `load average ${loadavg()[0].toFixed(1)}\n`,
  );
}

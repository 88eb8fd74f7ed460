import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { crawlConfig, silentLogger } from '../../pipeline/core/index.ts';
import { runDemo } from '../../pipeline/demo/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { listSnapshots, openDuckDb, sqlString } from '../../pipeline/snapshot/index.ts';
import { archivedResponses } from '../archive/warc-reader.ts';

const WEEKS = 4;

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
  const total = (root: string, folders: readonly string[]) =>
    folders
      .map((name) => archivedResponses(join(root, name)))
      .reduce(
        (sum, r) => ({
          responses: sum.responses + r.responses,
          bytes: sum.bytes + r.bytes,
          notModified: sum.notModified + r.notModified,
        }),
        { responses: 0, bytes: 0, notModified: 0 },
      );
  const a = total(on.root, names);
  const b = total(off.root, offNames);
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

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { crawlConfig } from '../../pipeline/core/index.ts';
import { estimateCrawl, readHistoryStats } from '../../pipeline/schedule/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import {
  listSnapshots,
  openDuckDb,
  queryRows,
  snapshotName,
  sqlString,
} from '../../pipeline/snapshot/index.ts';
import {
  REPORT_MARKER,
  type Reproduction,
  type WrittenReport,
  writeReport,
} from '../../pipeline/stats/index.ts';
import { hoursShape } from '../../pipeline/stats/reproductions.ts';
import { runCli } from '../commands/cli-process.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { openBrowser, type TestBrowser } from '../portal/browser.ts';
import { publishWeek, record, source } from '../snapshot/sample-crawl.ts';

const START = Date.UTC(2026, 10, 2);
const WEEK = 7 * 86_400_000;
const HOUR = 3_600_000;
const EVALUATIONS = new URL('../../docs/evaluation/', import.meta.url).pathname;

let work: string;
let root: string;
let out: string;
let kernel: string[];
let report: WrittenReport;
let browser: TestBrowser;

const figure = (id: string): Reproduction => {
  const r = report.reproductions.find((f) => f.id === id);
  assert.ok(r, id);
  return r;
};

/** Rows of an independent query over the newest weekly snapshot's documents table. */
async function newestRows(sql: string): Promise<unknown[][]> {
  const newest = (await listSnapshots(root)).at(-1);
  assert.ok(newest);
  const session = await openDuckDb();
  try {
    const table = `read_parquet(${sqlString(join(root, newest.name, 'documents.parquet'))})`;
    return await queryRows(session.connection, sql.replaceAll('DOCS', table));
  } finally {
    session.close();
  }
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'report-test-'));
  root = join(work, 'snapshots');
  out = join(work, 'reports');
  const sim = await startSimWeb({ seed: 5, docs: 140, plds: 14, latencyScale: 0, now: START });
  try {
    kernel = rdfDocuments(sim, START);
    for (let w = 0; w < 2; w++) await simWeekly(sim, root, START + w * WEEK, kernel, { adaptiveRounds: 2 });
  } finally {
    await sim.close();
  }
  // what `observatory estimate --json` prints, for the kernel against this history
  const estimation = join(work, 'estimation');
  await mkdir(estimation);
  const estimate = estimateCrawl({
    urls: kernel,
    stats: await readHistoryStats(root),
    config: crawlConfig({}),
    runs: 3,
  });
  await writeFile(join(estimation, 'kernel.json'), JSON.stringify(estimate));
  report = await writeReport({ root, out, evaluation: EVALUATIONS, estimation });
  browser = await openBrowser();
});

after(async () => {
  await browser?.close();
  await rm(work, { recursive: true, force: true });
});

test('without expand snapshots, Figures 2 and 3 show the newest weekly crawl by round, and say so', async () => {
  const newest = (await listSnapshots(root)).at(-1)!;
  for (const id of ['dyldo-figure-2', 'dyldo-figure-3']) {
    const f = figure(id);
    assert.match(f.summary, /no crawl of kind expand is published/);
    assert.ok(f.summary.includes(newest.name));
    assert.ok(f.table.rows.every((r) => r[0] === newest.name));
  }
  const f2 = figure('dyldo-figure-2');
  assert.deepEqual(f2.table.columns, ['crawl', 'round', 'documents', 'RDF documents', 'statements']);
  // round 0 of a weekly crawl is the kernel; the adaptive segment's hops follow it, one round each
  assert.equal(f2.table.rows[0][1], 0);
  assert.equal(f2.table.rows[0][2], kernel.length);
  assert.ok(f2.table.rows.length >= 2);
  assert.deepEqual(
    f2.table.rows.map((r) => r[1]),
    f2.table.rows.map((_, i) => i),
  );
  const independent = await newestRows(
    `SELECT round, count(*), count(*) FILTER (statements > 0 AND format IS NOT NULL),
       coalesce(sum(statements) FILTER (statements > 0 AND format IS NOT NULL AND downloaded_by = url), 0)
     FROM DOCS GROUP BY round ORDER BY round`,
  );
  assert.deepEqual(
    f2.table.rows.map((r) => r.slice(1)),
    independent.map((r) => r.map(Number)),
  );
  // the statements of every round add up to the snapshot's quads (each graph once)
  const manifest = JSON.parse(await readFile(join(root, newest.name, 'manifest.json'), 'utf8'));
  assert.equal(
    f2.table.rows.reduce((sum, r) => sum + Number(r[4]), 0),
    manifest.stats.statements,
  );
  const f3 = figure('dyldo-figure-3');
  assert.deepEqual(f3.table.columns, ['crawl', 'round', 'PLDs', 'new PLDs']);
  const [[rdfPlds]] = await newestRows(
    `SELECT count(DISTINCT pld) FROM DOCS WHERE statements > 0 AND format IS NOT NULL`,
  );
  // every PLD with RDF is new in exactly one round; round 0's PLDs are all new
  assert.equal(
    f3.table.rows.reduce((sum, r) => sum + Number(r[3]), 0),
    Number(rdfPlds),
  );
  assert.equal(f3.table.rows[0][2], f3.table.rows[0][3]);
});

test('Figure 4 and Table 4 count the kernel documents per PLD of the newest weekly snapshot', async () => {
  const perPld = await newestRows(
    `SELECT pld, count(*) FROM DOCS WHERE segment = 'kernel' AND statements > 0 AND format IS NOT NULL
     GROUP BY pld ORDER BY 2 DESC, 1`,
  );
  const counts = new Map<number, number>();
  for (const [, n] of perPld) counts.set(Number(n), (counts.get(Number(n)) ?? 0) + 1);
  assert.deepEqual(
    figure('dyldo-figure-4').table.rows,
    [...counts].sort((a, b) => a[0] - b[0]),
  );
  const total = perPld.reduce((s, [, n]) => s + Number(n), 0);
  assert.deepEqual(
    figure('dyldo-table-4').table.rows,
    perPld.slice(0, 25).map(([pld, n]) => [pld, Number(n), `${((100 * Number(n)) / total).toFixed(1)}%`]),
  );
  assert.equal(figure('dyldo-table-4').chart, null);
});

test("Figure 6's caption claims the paper's long tail only where the hours show one", () => {
  const hours = (...documents: number[]) => documents.map((d, h) => [h, d, d] as const);
  const cases: [ReturnType<typeof hours>, RegExp][] = [
    [hours(961), /the whole crawl finished within its first hour, too short to show the paper's long tail/],
    [hours(900, 61), /within its first 2 hours, too short/],
    [hours(500, 400, 60, 20, 15, 5), /its last 3 hours of 6 fetched 4% of the documents: the long tail/],
    [hours(100, 100, 100, 100), /its last 2 hours of 4 still fetched 50% of the documents: no long tail/],
  ];
  for (const [rows, said] of cases) assert.match(hoursShape(rows), said, JSON.stringify(rows));
});

test('Figure 6 counts documents per hour of the crawl from fetched_at, quiet hours included', async () => {
  const hours = join(work, 'hours');
  const start = Date.UTC(2026, 11, 7);
  // two documents in hour 0, none in hour 1, three in hour 2 (one of them not RDF)
  const at = [0, 0.5, 2.1, 2.5, 2.9].map((h) => start + h * HOUR);
  await publishWeek(
    hours,
    start,
    source(
      at.map((t, i) => {
        const url = `http://example.org/h${i}`;
        const rdf = i !== 3;
        const statements = rdf
          ? [
              {
                subject: url,
                predicate: 'http://example.org/p',
                object: 'o',
                objectKind: 'literal' as const,
                datatype: null,
                lang: null,
              },
            ]
          : [];
        return {
          record: record(url, t, { statements: statements.length, format: rdf ? 'turtle' : null }),
          statements,
        };
      }),
    ),
  );
  const { reproductions } = await writeReport({
    root: hours,
    out: join(work, 'hours-out'),
    evaluation: null,
    estimation: null,
  });
  const f6 = reproductions.find((r) => r.id === 'dyldo-figure-6');
  assert.deepEqual(f6?.table.columns, ['hour', 'documents', 'RDF documents']);
  assert.deepEqual(f6?.table.rows, [
    [0, 2, 2],
    [1, 0, 0],
    [2, 3, 2],
  ]);
  // the caption says what these hours show: no tail (the last hour fetched most documents)
  assert.match(f6?.summary ?? '', /its last hour of 3 still fetched 60% of the documents: no long tail/);
  assert.equal(snapshotName('weekly', start), (await listSnapshots(hours))[0].name);
});

test('every figure is a well-formed SVG with one line per series and one point per value', async () => {
  const page = await browser.context.newPage();
  const marks = async (id: string) => {
    await page.goto(pathToFileURL(join(out, `${id}.svg`)).href);
    return page.evaluate(() => ({
      errors: document.getElementsByTagName('parsererror').length,
      root: document.documentElement.tagName,
      lines: document.querySelectorAll('g.mark-line.role-mark path').length,
      points: document.querySelectorAll('g.mark-symbol.role-mark path').length,
    }));
  };
  const f2 = figure('dyldo-figure-2');
  // three panels (documents, RDF documents, statements), one crawl: three lines, a point per row and panel
  assert.deepEqual(await marks('dyldo-figure-2'), {
    errors: 0,
    root: 'svg',
    lines: 3,
    points: 3 * f2.table.rows.length,
  });
  const f3 = figure('dyldo-figure-3');
  assert.deepEqual(await marks('dyldo-figure-3'), {
    errors: 0,
    root: 'svg',
    lines: 2,
    points: 2 * f3.table.rows.length,
  });
  const f4 = figure('dyldo-figure-4');
  assert.deepEqual(await marks('dyldo-figure-4'), {
    errors: 0,
    root: 'svg',
    lines: 0,
    points: f4.table.rows.length,
  });
  const f6 = figure('dyldo-figure-6');
  assert.deepEqual(await marks('dyldo-figure-6'), {
    errors: 0,
    root: 'svg',
    lines: 2,
    points: 2 * f6.table.rows.length,
  });
  await page.close();
});

test('each figure has a CSV with its header and rows, and index.md shows it with its differences and query', async () => {
  const index = await readFile(join(out, 'index.md'), 'utf8');
  for (const r of report.reproductions) {
    const csv = (await readFile(join(out, `${r.id}.csv`), 'utf8')).trimEnd().split('\n');
    assert.equal(csv[0], r.table.columns.join(','));
    assert.equal(csv.length, 1 + r.table.rows.length);
    assert.ok(r.differences.length > 40, r.id);
    assert.ok(index.includes(`## ${r.paper}: ${r.title}`), r.id);
    assert.ok(index.includes(r.differences), r.id);
    assert.ok(index.includes(r.query), r.id);
  }
  assert.deepEqual(
    report.reproductions.map((r) => r.id),
    ['dyldo-figure-2', 'dyldo-figure-3', 'dyldo-figure-4', 'dyldo-table-4', 'dyldo-figure-6'],
  );
});

test("each figure's query runs as shown on the published files and gives the figure's data", async () => {
  const session = await openDuckDb();
  try {
    // the query names the files relative to the folder that holds snapshots/
    await session.connection.run(`SET file_search_path = ${sqlString(work)}`);
    const run = async (id: string) => {
      const rows = await queryRows(session.connection, figure(id).query);
      return rows.map((r) => r.map((v) => (typeof v === 'string' ? v : Number(v))));
    };
    assert.deepEqual(await run('dyldo-figure-4'), figure('dyldo-figure-4').table.rows);
    assert.deepEqual(await run('dyldo-figure-6'), figure('dyldo-figure-6').table.rows);
    // Figures 2 and 3 share one query: crawl, round, documents, RDF documents, statements, PLDs, new PLDs
    const rounds = await run('dyldo-figure-2');
    assert.deepEqual(
      rounds.map((r) => r.slice(0, 5)),
      figure('dyldo-figure-2').table.rows,
    );
    assert.deepEqual(
      rounds.map((r) => [...r.slice(0, 2), ...r.slice(5)]),
      figure('dyldo-figure-3').table.rows,
    );
  } finally {
    session.close();
  }
});

test('the evaluations and the estimation are included as their commands wrote them', async () => {
  const folders = (await readdir(EVALUATIONS, { withFileTypes: true })).filter((e) => e.isDirectory());
  const written = await readdir(out);
  for (const f of folders)
    for (const name of ['tradeoff.svg', 'results.csv'])
      assert.equal(
        await readFile(join(out, `evaluation-${f.name}-${name}`), 'utf8'),
        await readFile(join(EVALUATIONS, f.name, name), 'utf8'),
        `${f.name}/${name}`,
      );
  assert.ok(written.includes('estimation.csv'));
  const csv = (await readFile(join(out, 'estimation.csv'), 'utf8')).trimEnd().split('\n');
  assert.equal(csv.length, 2);
  const estimate = JSON.parse(await readFile(join(work, 'estimation', 'kernel.json'), 'utf8'));
  assert.deepEqual(csv[1].split(',').slice(0, 4), [
    'kernel',
    String(estimate.urls),
    String(estimate.plds),
    String(estimate.unknownPlds),
  ]);
  const index = await readFile(join(out, 'index.md'), 'utf8');
  assert.match(index, /## Crawl-time estimates/);
  for (const f of folders) assert.ok(index.includes(`## Re-visit strategies: ${f.name}`), f.name);
});

test('a folder without evaluate output is refused with its reason, before anything is written', async () => {
  await assert.rejects(
    writeReport({ root, out: join(work, 'never'), evaluation: work, estimation: null }),
    (e: Error & { code?: string }) => e.code === 'invalid_input' && /results\.json/.test(e.message),
  );
  assert.deepEqual(await readdir(work).then((n) => n.includes('never')), false);
});

test('Figures 2 and 3 group any kind of snapshot by crawl and round: the kind is a parameter', async () => {
  const weekly = (await listSnapshots(root)).filter((e) => e.kind === 'weekly').map((e) => e.name);
  const byKind = await writeReport({
    root,
    out: join(work, 'by-kind'),
    evaluation: null,
    estimation: null,
    rounds: { kind: 'weekly' },
  });
  const fallback = await writeReport({
    root,
    out: join(work, 'fallback'),
    evaluation: null,
    estimation: null,
    rounds: { weeklyCrawls: 2 },
  });
  for (const { reproductions } of [byKind, fallback]) {
    const f2 = reproductions.find((r) => r.id === 'dyldo-figure-2');
    assert.deepEqual([...new Set(f2?.table.rows.map((r) => r[0]))], weekly);
  }
  assert.match(byKind.reproductions[0].summary, /snapshots of kind weekly/);
  assert.match(fallback.reproductions[0].summary, /no crawl of kind expand is published/);
  // one line per crawl in each of the three panels
  const page = await browser.context.newPage();
  await page.goto(pathToFileURL(join(work, 'by-kind', 'dyldo-figure-2.svg')).href);
  assert.equal(
    await page.evaluate(() => document.querySelectorAll('g.mark-line.role-mark path').length),
    3 * weekly.length,
  );
  await page.close();
});

test('observatory report writes the figures, and refuses bad input with a one-line reason', async () => {
  const cliOut = join(work, 'cli-out');
  const ok = await runCli(['report', '--root', root, '--out', cliOut]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /5 figures from the snapshots/);
  assert.deepEqual(
    (await readdir(cliOut)).sort(),
    [
      ...report.reproductions.flatMap((r) => [`${r.id}.csv`, ...(r.chart ? [`${r.id}.svg`] : [])]),
      'index.md',
      REPORT_MARKER,
    ].sort(),
  );
  const zero = await runCli(['report', '--root', root, '--out', cliOut, '--weekly-crawls', '0']);
  assert.notEqual(zero.status, 0);
  assert.match(zero.stderr, /--weekly-crawls/);
  const empty = await runCli(['report', '--root', join(work, 'nothing'), '--out', cliOut]);
  assert.notEqual(empty.status, 0);
  assert.equal(empty.stderr.trim().split('\n').length, 1, empty.stderr);
});

/**
 * The "What changes" page in Chromium, over two weeks of the simulated Web with their re-visits:
 * reached from the navigation, and every table it renders is what the data dictionary's delta
 * queries compute from the published delta.parquet files (DuckDB over the folders, not the
 * portal's digests).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  type BuiltPortal,
  buildPortal,
  type PortalServer,
  servePortal,
} from '../../pipeline/portal/index.ts';
import { openDuckDb, queryRows } from '../../pipeline/snapshot/index.ts';
import { openBrowser, type TestBrowser } from './browser.ts';
import { buildSeries } from './series.ts';

let work: string;
let root: string;
let server: PortalServer;
let built: BuiltPortal;
let browser: TestBrowser;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'what-changes-'));
  root = join(work, 'snapshots');
  await buildSeries(root, 2);
  server = await servePortal({ dir: join(work, 'dist') });
  built = await buildPortal({
    root,
    out: join(work, 'dist'),
    dataDir: join(work, 'data'),
    baseUrl: server.url,
  });
  browser = await openBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

/** A docs/queries file run over the series, its rows as text. */
async function documented(file: string): Promise<string[][]> {
  const sql = await readFile(new URL(`../../docs/queries/${file}`, import.meta.url), 'utf8');
  const session = await openDuckDb();
  try {
    const rows = await queryRows(session.connection, sql.replaceAll("'snapshots/", `'${root}/`));
    return rows.map((r) => r.map(String));
  } finally {
    session.close();
  }
}

/** The rows of the table after the heading `id`, as rendered (numbers without their separators). */
async function rendered(page: Page, id: string): Promise<string[][]> {
  return page.$$eval(`h2#${id} ~ div.scroll table`, (tables) =>
    [...(tables[0]?.querySelectorAll('tbody tr') ?? [])].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim().replaceAll(',', '')),
    ),
  );
}

test('the page is in the navigation and shows, table by table, what the delta queries compute from the files', async () => {
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await page.click('nav a:text-is("What changes")');
  assert.equal(new URL(page.url()).pathname, '/what-changes/');
  assert.equal(await page.getAttribute('nav a[aria-current="page"]', 'href'), '/what-changes/');
  const w = built.data.whatChanges;
  assert.ok(w.predicates.rows.length >= 2 && w.links.rows.length > 0, JSON.stringify(w.predicates));
  // each ranking: the first 25 terms of its kind in the documented query, by added + removed, ties by term
  const terms = await documented('delta-terms.sql');
  for (const [id, kind] of [
    ['predicates', 'predicate'],
    ['classes', 'class'],
    ['links', 'link target'],
  ] as const) {
    const expected = terms
      .filter((r) => r[0] === kind)
      .slice(0, 25)
      .map((r) => r.slice(1, 4));
    assert.deepEqual(await rendered(page, id), expected, id);
  }
  // churn per PLD over all weeks, from the week-by-week query summed
  const churn = new Map<string, number[]>();
  for (const [, pld, documents, added, removed] of await documented('delta-churn-per-pld.sql')) {
    const t = churn.get(pld) ?? [0, 0, 0];
    churn.set(pld, [t[0] + Number(documents), t[1] + Number(added), t[2] + Number(removed)]);
  }
  const plds = [...churn]
    .sort(([a, x], [b, y]) => y[1] + y[2] - (x[1] + x[2]) || (a < b ? -1 : 1))
    .slice(0, 25)
    .map(([pld, [documents, added, removed]]) => [pld, String(documents), String(added), String(removed)]);
  assert.deepEqual(
    (await rendered(page, 'plds')).map((r) => r.slice(0, 4)),
    plds,
  );
  // week by week (each the weekly snapshot and its re-visits): the weeks in which something changed
  const weeks = new Map<string, number[]>();
  for (const [week, , , added, removed] of await documented('delta-churn-per-pld.sql')) {
    const t = weeks.get(week) ?? [0, 0];
    weeks.set(week, [t[0] + Number(added), t[1] + Number(removed)]);
  }
  assert.deepEqual(
    (await rendered(page, 'weeks'))
      .map((r) => [r[0], r[3], r[4]])
      .filter((r) => r[1] !== '0' || r[2] !== '0'),
    [...weeks].map(([week, [added, removed]]) => [week, String(added), String(removed)]),
  );
  assert.ok(weeks.size > 0);
  const chart = await page.$('h2#weeks ~ figure .chart svg');
  assert.ok(chart, 'the week-by-week chart is drawn');
  await page.close();
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ConsoleMessage, Page } from 'playwright-core';
import {
  CRAWL_OPTION_ENTRIES,
  CRAWL_OPTIONS,
  type CrawlOption,
  crawlConfig,
  flagName,
} from '../../pipeline/core/index.ts';
import {
  type BuiltPortal,
  buildPortal,
  type PortalServer,
  servePortal,
} from '../../pipeline/portal/index.ts';
import { REPLAY_BUNDLE } from '../../pipeline/portal/replay-bundle.ts';
import { estimateCrawl, readHistoryStats } from '../../pipeline/schedule/index.ts';
import { readManifest } from '../../pipeline/snapshot/index.ts';
import { SOURCE_REPOSITORY } from '../../pipeline/stats/source-repository.ts';
import { openBrowser, type TestBrowser } from './browser.ts';
import { HOSTILE_CLASS, HOSTILE_URLS } from './hostile-site.ts';
import { layoutProblems } from './layout-checks.ts';
import { buildSeries } from './series.ts';

/** An `observatory evaluate --out` folder of the repository, shown on the Reproductions page. */
const EVALUATION = new URL('../../docs/evaluation/all/', import.meta.url).pathname;

let work: string;
let server: PortalServer;
let built: BuiltPortal;
let browser: TestBrowser;
/** Every internal page reached by following links from the home page, with what loading it logged. */
const pages = new Map<string, { status: number; consoleErrors: string[]; dialogs: number }>();

async function visit(page: Page, url: string) {
  const consoleErrors: string[] = [];
  let dialogs = 0;
  const onConsole = (m: ConsoleMessage) => {
    // ReplayWeb.page's frame asks its worker (under replaywebpage/w/) for what an archive may lack,
    // each page's thumbnail (a crawl takes no screenshots), a collection still loading: answered 404
    if (m.type() === 'error' && !m.location().url.startsWith(`${server.url}${REPLAY_BUNDLE.dir}/w/`))
      consoleErrors.push(m.text());
  };
  const onPageError = (e: Error) => consoleErrors.push(e.message);
  const onDialog = async (d: { dismiss(): Promise<void> }) => {
    dialogs++;
    await d.dismiss();
  };
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  page.on('dialog', onDialog);
  const response = await page.goto(url, { waitUntil: 'load' });
  page.off('console', onConsole);
  page.off('pageerror', onPageError);
  page.off('dialog', onDialog);
  return { status: response?.status() ?? 0, consoleErrors, dialogs };
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'portal-test-'));
  const root = join(work, 'snapshots');
  await buildSeries(root, 3);
  // listen first: the built site's absolute URLs (urls.txt, VoID/DCAT) carry the served address
  server = await servePortal({ dir: join(work, 'dist') });
  // what `observatory estimate --json` prints, for the newest weekly snapshot's URIs
  await mkdir(join(work, 'estimation'));
  const estimate = estimateCrawl({
    urls: [...HOSTILE_URLS],
    stats: await readHistoryStats(root),
    config: crawlConfig({}),
    runs: 2,
  });
  await writeFile(join(work, 'estimation', 'hostile.json'), JSON.stringify(estimate));
  built = await buildPortal({
    root,
    out: join(work, 'dist'),
    dataDir: join(work, 'data'),
    baseUrl: server.url,
    evaluation: EVALUATION,
    estimation: join(work, 'estimation'),
  });
  browser = await openBrowser();
  const page = await browser.context.newPage();
  const queue = [server.url];
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (pages.has(url)) continue;
    pages.set(url, await visit(page, url));
    const links = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
    for (const link of links) {
      const u = new URL(link);
      u.hash = '';
      if (u.href.startsWith(server.url) && u.href.endsWith('/') && !pages.has(u.href)) queue.push(u.href);
    }
  }
  await page.close();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

test('every page reached from the home page loads without a console error', () => {
  assert.ok(
    pages.size >= 7 + built.data.snapshots.length + built.data.domains.length,
    `only ${pages.size} pages`,
  );
  for (const [url, p] of pages) {
    assert.equal(p.status, 200, url);
    assert.deepEqual(p.consoleErrors, [], url);
    assert.equal(p.dialogs, 0, url);
  }
});

test('every internal link resolves, files included', async () => {
  const page = await browser.context.newPage();
  const targets = new Set<string>();
  for (const url of pages.keys()) {
    await page.goto(url);
    for (const href of await page.$$eval('a[href], link[href]', (as) =>
      as.map((a) => (a as HTMLAnchorElement).href),
    )) {
      const u = new URL(href);
      u.hash = '';
      if (u.href.startsWith(server.url)) targets.add(u.href);
    }
  }
  await page.close();
  for (const target of targets) {
    const res = await fetch(target, { method: 'HEAD' });
    assert.equal(res.status, 200, target);
  }
});

test('charts are drawn as SVG with a text alternative and their data as a table', async () => {
  const page = await browser.context.newPage();
  for (const path of ['', 'dynamics/', 'reproductions/', `domains/${built.data.domains[0].slug}/`]) {
    await page.goto(server.url + path);
    const figures = await page.$$eval('figure.chart-figure', (fs) =>
      fs.map((f) => ({
        // one drawing shows at a time (a wide and a phone one, or a compact one)
        svg: [...f.querySelectorAll('.chart svg')].filter((svg) => svg.checkVisibility()).length,
        label: f.querySelector('.chart')?.getAttribute('aria-label') ?? '',
        caption: f.querySelector('figcaption')?.textContent ?? '',
        rows: f.querySelectorAll('details table tbody tr').length,
      })),
    );
    // a PLD's page has one chart; the Reproductions page four (Table 4 is a table)
    const least = path.startsWith('domains/') ? 1 : path === 'reproductions/' ? 4 : 5;
    assert.ok(figures.length >= least, path);
    for (const f of figures) {
      assert.equal(f.svg, 1);
      assert.ok(f.label.length > 20 && f.caption.length > 20, JSON.stringify(f));
    }
    assert.ok(figures.some((f) => f.rows > 0));
  }
  await page.close();
});

test('every download link (the newest weekly snapshot on Downloads, each snapshot on its page) points to a file of the stated size and checksum', async () => {
  const page = await browser.context.newPage();
  const found = new Map<string, { href: string; bytes: string | null; sha: string | null }>();
  for (const path of ['downloads/', ...built.data.snapshots.map((s) => `snapshots/${s.name}/`)]) {
    await page.goto(server.url + path);
    const links = await page.$$eval('a[data-sha256]', (as) =>
      as.map((a) => ({
        href: (a as HTMLAnchorElement).href,
        bytes: a.getAttribute('data-bytes'),
        sha: a.getAttribute('data-sha256'),
      })),
    );
    for (const l of links) found.set(l.href, l);
  }
  await page.close();
  const links = [...found.values()];
  const expected = built.data.snapshots.reduce((n, s) => n + s.files.length, 0);
  assert.equal(links.length, expected);
  for (const l of links) {
    const body = Buffer.from(await (await fetch(l.href)).arrayBuffer());
    assert.equal(String(body.length), l.bytes, l.href);
    assert.equal(createHash('sha256').update(body).digest('hex'), l.sha, l.href);
  }
  const list = (await (await fetch(`${server.url}urls.txt`)).text()).trim().split('\n');
  // besides the files: the catalogue, the latest alias and each snapshot's own list
  // (test/portal/mirror.test.ts mirrors them)
  const lists = [
    `${server.url}snapshots/index.json`,
    `${server.url}snapshots/latest.json`,
    ...built.data.snapshots.map((s) => `${server.url}snapshots/${s.name}/urls.txt`),
  ];
  assert.deepEqual(new Set(list), new Set([...links.map((l) => l.href), ...lists]));
});

test("the Reproductions page, in the navigation, shows the paper's figures with their differences and queries", async () => {
  const page = await browser.context.newPage();
  await page.goto(server.url);
  // the click starts the navigation; read the page once it has loaded whole, not while it arrives
  await Promise.all([
    page.waitForURL('**/reproductions/', { waitUntil: 'load' }),
    page.click('nav a:text-is("Reproductions")'),
  ]);
  assert.equal(new URL(page.url()).pathname, '/reproductions/');
  const shown = await page.$$eval('section.reproduction', (sections) =>
    sections.map((s) => ({
      heading: s.querySelector('h2')?.textContent ?? '',
      svgs: s.querySelectorAll('figure .chart svg').length,
      differences: s.querySelector('.differences')?.textContent ?? '',
      query: s.querySelector('details pre')?.textContent ?? '',
      rows: [...s.querySelectorAll('table tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent),
      ),
    })),
  );
  const expected = built.data.reproductions;
  assert.deepEqual(
    shown.map((s) => s.heading),
    expected.map((r) => `${r.paper}: ${r.title}`),
  );
  assert.deepEqual(
    expected.map((r) => r.id),
    ['dyldo-figure-2', 'dyldo-figure-3', 'dyldo-figure-4', 'dyldo-table-4', 'dyldo-figure-6'],
  );
  for (const [i, r] of expected.entries()) {
    assert.equal(shown[i].svgs, r.chart ? 2 : 0, r.id);
    assert.equal(shown[i].differences, `Differs from the paper: ${r.differences}`);
    assert.equal(shown[i].query, r.query);
    // the data as a table under the chart, or the table itself: every row the figure has
    assert.equal(shown[i].rows.length, r.table.rows.length, r.id);
  }
  // Table 4 as numbers: its documents add up to the newest weekly snapshot's kernel documents with RDF
  const table4 = shown[expected.findIndex((r) => r.id === 'dyldo-table-4')];
  assert.ok(table4.rows.length > 0);
  assert.deepEqual(
    table4.rows.map((r) => r[0]),
    expected.find((r) => r.id === 'dyldo-table-4')?.table.rows.map((r) => r[0]),
  );
  await page.close();
});

test('the Reproductions page shows the evaluate and estimate outputs it was given, as they were written', async () => {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}reproductions/`);
  const images = await page.$$eval('#strategies img', (imgs) =>
    imgs.map((img) => ({
      loaded: (img as HTMLImageElement).naturalWidth > 0,
      src: (img as HTMLImageElement).src,
      scale: img.getBoundingClientRect().width / (img as HTMLImageElement).naturalWidth,
    })),
  );
  const svgs = ['tradeoff.svg', 'monthly.svg'];
  assert.equal(images.length, svgs.length);
  for (const [i, name] of svgs.entries()) {
    assert.ok(images[i].loaded, name);
    // shown as drawn (its text at the 12 px of the portal's charts), neither stretched nor shrunk
    assert.ok(Math.abs(images[i].scale - 1) < 0.01, `${name} shown at ${images[i].scale} of its size`);
    const text = Buffer.from(images[i].src.split(',')[1], 'base64').toString();
    assert.equal(text, await readFile(join(EVALUATION, name), 'utf8'));
  }
  const overall = (await readFile(join(EVALUATION, 'results.csv'), 'utf8'))
    .split('\n')
    .filter((line) => line.split(',')[1] === 'all');
  const rows = await page.$$eval('#strategies table tbody tr', (trs) =>
    trs.map((tr) => tr.querySelector('td')?.textContent),
  );
  assert.deepEqual(
    rows,
    overall.map((line) => line.split(',')[0]),
  );
  const estimation = await page.$$eval('#estimation table tbody tr td', (tds) =>
    tds.map((td) => td.textContent),
  );
  assert.equal(estimation[0], 'hostile');
  assert.equal(estimation[1], String(HOSTILE_URLS.length));
  await page.close();
});

test('crawled markup is rendered as text, never as markup', async () => {
  const page = await browser.context.newPage();
  const first = built.data.snapshots[0].name;
  for (const path of [`snapshots/${first}/`, 'dynamics/']) {
    await page.goto(server.url + path);
    const text = await page.textContent('main');
    assert.ok(text?.includes(HOSTILE_CLASS), `${path} shows the hostile class IRI as text`);
  }
  for (const url of pages.keys()) {
    await page.goto(url);
    const injected = await page.evaluate(() => ({
      scripts: document.querySelectorAll('script').length,
      // the one kind of image the site shows: evaluate's figures on Reproductions, as SVG data: URLs
      images: [...document.querySelectorAll('img')].filter(
        (img) => !(img.closest('#strategies') && img.src.startsWith('data:image/svg+xml;base64,')),
      ).length,
      handlers: [...document.querySelectorAll('*')].filter((e) =>
        [...e.attributes].some((a) => a.name.startsWith('on')),
      ).length,
    }));
    // the SQL console's own script and ReplayWeb.page on the Replay page (test/portal/replay.test.ts)
    // are the scripts of the site
    const scripts = [`${server.url}query/`, `${server.url}replay/`].includes(url) ? 1 : 0;
    assert.deepEqual(injected, { scripts, images: 0, handlers: 0 }, url);
  }
  await page.close();
});

/** Each kind of page the portal has, by its path (a snapshot's page of either kind, a domain's). */
function pageKind(url: string): string {
  const path = new URL(url).pathname;
  const snapshot = /^\/snapshots\/([^/]+)\/$/.exec(path)?.[1];
  if (snapshot) return built.data.snapshots.find((s) => s.name === snapshot)?.kind ?? 'snapshot';
  if (/^\/domains\/[^/]+\/$/.test(path)) return 'domain';
  return path;
}

/** Runs the console's query `sql` and waits until it shows its result or its error. */
async function runInConsole(page: Page, sql: string): Promise<void> {
  await page.fill('#sql', sql);
  await page.evaluate(() => {
    (document.getElementById('sql-console') as HTMLElement).dataset.state = 'clicked';
  });
  await page.click('#run');
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.getElementById('sql-console')?.dataset.state ?? ''),
    null,
    { timeout: 0 },
  );
}

test('the layout check finds each defect it is for, measured in the page', async () => {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  const long = 'http://yago-knowledge.org/resource/Aristoteles_von_Stageira';
  await page.setContent(`<!doctype html><meta name="viewport" content="width=device-width">
    <style>body { margin: 0 } td { overflow-wrap: anywhere }</style>
    <table id="broken" style="width: 200px"><tr><td>${long}</td><td>${'9'.repeat(40)}</td></tr></table>
    <div id="bare" style="overflow-x: auto"><table><tr><td style="white-space: nowrap">${long} ${long}</td></tr></table></div>
    <p id="tiny" style="font-size: 9px">small print</p>
    <p id="cut" style="margin-left: 300px; width: 200px">past the edge</p>`);
  const problems = await page.evaluate(layoutProblems);
  const found = (pattern: RegExp) => problems.some((p) => pattern.test(p));
  assert.ok(found(/"9{40}" broken over \d lines in a table cell/), problems.join('\n'));
  assert.ok(found(/"Aristoteles" broken over \d lines in a table cell/), problems.join('\n'));
  assert.ok(found(/table wider than its box .* not in a visibly scrollable container/), problems.join('\n'));
  assert.ok(found(/scrolls sideways with no sign of it/), problems.join('\n'));
  assert.ok(found(/text of 9\.0px: <p#tiny>/), problems.join('\n'));
  assert.ok(found(/cut at the edge .*<p#cut>/), problems.join('\n'));
  assert.ok(found(/the page is \d+px wider than the viewport/), problems.join('\n'));
  await page.close();
});

test('every page kind reads at 390 and 1366 px: no word broken in a table cell, no hidden scrolling, no text under 11 px, nothing cut', async () => {
  // PORTAL_SCREENSHOTS=docs/portal refreshes the screenshots of docs/portal.md and the README
  const SCREENSHOTS = process.env.PORTAL_SCREENSHOTS ?? join(work, 'screenshots');
  await mkdir(SCREENSHOTS, { recursive: true });
  const kinds = new Set([...pages.keys()].map(pageKind));
  for (const kind of [
    '/',
    '/snapshots/',
    'weekly',
    'interval',
    '/dynamics/',
    '/reproductions/',
    '/domains/',
    'domain',
    '/data/',
    '/query/',
    '/downloads/',
    '/about/',
    '/errata/',
    '/dataset/',
  ])
    assert.ok(kinds.has(kind), `a page of kind ${kind} is reached from the home page`);
  const page = await browser.context.newPage();
  const domain = built.data.domains.find((d) => (d.latest?.listed.rows.length ?? 0) > 1)!;
  for (const width of [390, 1366]) {
    await page.setViewportSize({ width, height: 844 });
    for (const url of [...pages.keys(), `${server.url}404.html`]) {
      await page.goto(url);
      assert.deepEqual(await page.evaluate(layoutProblems), [], `${url} at ${width}px`);
    }
    // the console as it looks after a run: a result of long IRIs and times, then a long error
    await page.goto(`${server.url}query/`);
    const documents = built.data.snapshots
      .find((s) => s.name === built.data.latestWeekly)!
      .files.find((f) => f.name === 'documents.parquet')!.url;
    await runInConsole(
      page,
      `SELECT url, final_url, fetched_at, status, error FROM read_parquet('${documents}') ORDER BY url LIMIT 20`,
    );
    assert.equal(await page.locator('#result tbody tr').count(), 20);
    assert.deepEqual(await page.evaluate(layoutProblems), [], `the console's result at ${width}px`);
    if (width === 390) {
      // the query, its button and the first rows of its result
      await page.evaluate(() => document.querySelector('label[for="sql"]')?.scrollIntoView());
      await page.screenshot({ path: join(SCREENSHOTS, 'console-phone.png') });
    }
    await runInConsole(
      page,
      `SELECT * FROM read_parquet('${documents.replace('documents.parquet', 'no-such-table.parquet')}')`,
    );
    assert.match((await page.textContent('#error')) ?? '', /404/);
    assert.deepEqual(await page.evaluate(layoutProblems), [], `the console's error at ${width}px`);
  }
  // what docs/portal.md shows: the pages a newcomer opens first, at phone width
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [file, path] of [
    ['home-phone.png', ''],
    ['dynamics-phone.png', 'dynamics/#plds'],
    ['domain-phone.png', `domains/${domain.slug}/#documents`],
    ['downloads-phone.png', 'downloads/#latest'],
    ['snapshot-phone.png', `snapshots/${built.data.latestWeekly}/`],
  ]) {
    await page.goto(server.url + path);
    await page.screenshot({ path: join(SCREENSHOTS, file) });
  }
  await page.close();
  assert.ok((await readFile(join(SCREENSHOTS, 'home-phone.png'))).length > 1000);
});

test('times to the second, counts in the right number, no raw Markdown, and docs named as links to the source', async () => {
  const page = await browser.context.newPage();
  // a crawl of the test's small Web starts and ends within a minute: to the minute both read the same
  const weekly = built.data.snapshots.find((s) => s.name === built.data.latestWeekly)!;
  await page.goto(`${server.url}snapshots/${weekly.name}/`);
  const second = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
  assert.match(
    (await page.textContent('main > p')) ?? '',
    new RegExp(`crawled ${second(weekly.startedAt)} to ${second(weekly.endedAt)}`),
  );
  const links: { text: string; href: string }[] = [];
  for (const url of pages.keys()) {
    await page.goto(url);
    const shown = await page.evaluate(() => {
      const main = document.querySelector('main')!.cloneNode(true) as Element;
      for (const e of main.querySelectorAll('pre, code, textarea, script, style, [aria-label]')) e.remove();
      const text = (main.textContent ?? '').replace(/\s+/g, ' ');
      const docs = [...document.querySelectorAll('main :not(pre, code) > a, main a:has(> code)')]
        .filter((a) => /docs\//.test(a.textContent ?? ''))
        .map((a) => ({ text: a.textContent ?? '', href: (a as HTMLAnchorElement).href }));
      // a docs/ path in prose that is not a link
      const bare = [...document.querySelectorAll('main :is(p, li, dd, figcaption, td)')].flatMap((e) =>
        [...e.childNodes]
          .filter((n) => n.nodeType === Node.TEXT_NODE && /\bdocs\/[\w/-]+\.md\b/.test(n.textContent ?? ''))
          .map((n) => n.textContent ?? ''),
      );
      return { text, docs, bare };
    });
    links.push(...shown.docs);
    assert.deepEqual(shown.bare, [], `${url}: a docs/ reference that is not a link`);
    // Markdown as its marks: *emphasis*, [text](target), `code`
    assert.doesNotMatch(shown.text, /(^|\s)\*\w[^*]*\w\*|\]\(|`/, url);
    // "1 redirect hops", "1 documents": a count of one with a plural noun
    assert.doesNotMatch(
      shown.text,
      /(?<![\d.,])\b1 (redirect hops|documents|files|snapshots|observations|distinct subjects|predicates|classes|literals|blank nodes)\b/,
      url,
    );
  }
  assert.ok(links.length >= 3, `${links.length} links to docs`);
  for (const link of links)
    assert.ok(link.href.startsWith(`${SOURCE_REPOSITORY}/`), `${link.text}: ${link.href}`);
  await page.goto(`${server.url}about/`);
  assert.equal(
    await page.locator(`#source a[href="${SOURCE_REPOSITORY}"]`).count(),
    1,
    'About links the source',
  );
  await page.goto(`${server.url}data/`);
  assert.ok((await page.locator('main td em').count()) > 0, "the dictionary's emphasis is rendered");
  await page.close();
});

test('chart text is at least 11 px as rendered and never cut, on a phone and on a desktop', async () => {
  const page = await browser.context.newPage();
  const withCharts = ['', 'dynamics/', 'reproductions/', `domains/${built.data.domains[0].slug}/`];
  for (const width of [390, 1366]) {
    await page.setViewportSize({ width, height: 900 });
    for (const path of withCharts) {
      await page.goto(server.url + path);
      // SVG text scales with its drawing: its size on screen is the font size times the drawing's scale
      const texts = await page.$$eval('figure .chart svg text', (elements) =>
        elements
          .filter((t) => t.textContent?.trim() && t.checkVisibility({ opacityProperty: true }))
          .map((t) => {
            const m = (t as SVGTextElement).getScreenCTM();
            const px = Number.parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 0);
            const box = t.getBoundingClientRect();
            const svg = t.closest('svg')?.getBoundingClientRect();
            // a label Vega cut short ("1 to <4 wee…") or drawn past its drawing's edge is not read either
            const cut =
              t.textContent?.endsWith('…') ||
              !svg ||
              box.left < svg.left - 1 ||
              box.right > svg.right + 1 ||
              box.top < svg.top - 1 ||
              box.bottom > svg.bottom + 1;
            return { text: t.textContent, px: Math.round(px * 10) / 10, cut };
          }),
      );
      assert.deepEqual(
        texts.filter((t) => t.cut),
        [],
        `${path} at ${width}px: labels cut`,
      );
      assert.ok(texts.length >= 5, `${path} at ${width}px: ${texts.length} texts`);
      assert.deepEqual(
        texts.filter((t) => t.px < 11),
        [],
        `${path} at ${width}px`,
      );
      // one text size for every chart of the page: a short bar chart stretched to the column drew
      // its labels at twice the size of a line chart's
      const sizes = texts.map((t) => t.px);
      assert.ok(
        Math.max(...sizes) <= 1.25 * Math.min(...sizes),
        `${path} at ${width}px: chart text from ${Math.min(...sizes)} to ${Math.max(...sizes)} px`,
      );
    }
  }
  await page.close();
});

test('no word is glued to inline code, a link or the next sentence where the source meant a space', async () => {
  const page = await browser.context.newPage();
  for (const url of pages.keys()) {
    await page.goto(url);
    const glued = await page.evaluate(() => {
      const found: string[] = [];
      const prose = 'main :is(p, li, dd, dt, figcaption, h1, h2, h3), footer';
      for (const el of document.querySelectorAll(`:is(${prose}) :is(a, code)`)) {
        if (el.closest('pre, table, nav')) continue;
        const text = el.textContent ?? '';
        const before = el.previousSibling?.textContent ?? '';
        const after = el.nextSibling?.textContent ?? '';
        // "at`http://`", "per line:`wget`" / "`x`and": a word or punctuation touching the element
        if (/[\p{L}\p{N}.,:;!?]$/u.test(before) && /^[\p{L}\p{N}]/u.test(text))
          found.push(`${before.slice(-20)}|${text}`);
        if (/^[\p{L}\p{N}]/u.test(after) && /[\p{L}\p{N}.,:;!?)]$/u.test(text))
          found.push(`${text}|${after.slice(0, 20)}`);
      }
      for (const block of document.querySelectorAll(prose)) {
        const copy = block.cloneNode(true) as Element;
        for (const code of copy.querySelectorAll('code, pre, table')) code.remove();
        const text = (copy.textContent ?? '').replace(/\s+/g, ' ');
        // "UTC.Previous:", "at most24 hours" (a number glued to the word before it; "bio2rdf.org" is a name)
        for (const m of text.matchAll(/\p{Ll}{2,}\d+(?=\s)|\p{L}[.:;]\p{Lu}\p{Ll}/gu)) found.push(m[0]);
      }
      return found;
    });
    assert.deepEqual(glued, [], url);
  }
  await page.close();
});

test('on a phone, file names do not break mid-word and the citation is not cut off, on paper neither', async () => {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ['downloads/', `snapshots/${built.data.snapshots.at(-1)!.name}/`]) {
    await page.goto(server.url + path);
    const broken = await page.$$eval('a[data-sha256]', (as) =>
      as.filter((a) => a.getClientRects().length !== 1).map((a) => a.textContent),
    );
    assert.deepEqual(broken, [], path);
  }
  await page.goto(`${server.url}data/`);
  for (const media of ['screen', 'print'] as const) {
    await page.emulateMedia({ media });
    const cite = await page.$eval('#cite ~ pre', (pre) => ({
      hidden: pre.scrollWidth - pre.clientWidth,
      text: pre.textContent,
    }));
    assert.ok(cite.hidden <= 1, `${media}: ${cite.hidden}px of the citation hidden`);
    assert.match(cite.text ?? '', /SHA-256 of manifest\.json: [0-9a-f]{64}/);
  }
  await page.close();
});

test('the series IRI resolves to the dataset page, which names the operators or says they are not configured', async () => {
  const series = built.data.dataset.series;
  assert.equal(series, `${server.url}dataset/#series`);
  const res = await fetch(series);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.ok(html.includes(series), 'the page states the series IRI');
  assert.ok(pages.has(`${server.url}dataset/`), 'the dataset page is linked from every page');
  const page = await browser.context.newPage();
  await page.goto(`${server.url}about/`);
  assert.match((await page.textContent('#contact + p')) ?? '', /have not published a contact address yet/);
  await page.close();
});

test('the About page shows every crawl option as the newest weekly snapshot ran with it, from its manifest', async () => {
  const latest = built.data.latestWeekly;
  const recorded = (await readManifest(join(work, 'snapshots', latest))).config as Record<string, unknown>;
  const page = await browser.context.newPage();
  await page.goto(`${server.url}about/`);
  const rows = await page.$$eval('#crawl-settings tbody tr', (trs) =>
    trs.map((tr) => ({
      key: tr.getAttribute('data-setting') ?? '',
      cells: [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim()),
    })),
  );
  assert.deepEqual(
    rows.map((r) => r.key),
    CRAWL_OPTION_ENTRIES.map(([key]) => key),
  );
  for (const { key, cells } of rows) {
    const option = CRAWL_OPTIONS[key as keyof typeof CRAWL_OPTIONS] as CrawlOption<unknown>;
    const [, flag, value, source] = cells;
    assert.equal(flag, flagName(option) ?? '–', key);
    // the series ran without --profile: the manifest records none, and that is what it ran with
    assert.deepEqual([value, source], [option.show(recorded[key]), 'manifest'], key);
  }
  // the series crawls with a 2 ms delay and one attempt, not the defaults (2 s, two attempts)
  const row = (key: string) => rows.find((r) => r.key === key)!.cells[2];
  assert.deepEqual([row('delayMs'), row('maxAttempts'), row('policy')], ['2 ms', '1', 'longest-first']);
  const politeness = (await page.textContent('#politeness + ul')) ?? '';
  assert.match(politeness, /start at least 0\.002 s apart/);
  assert.match(politeness, /one attempt, no retry/);
  assert.equal(
    ((await page.textContent('#settings + p')) ?? '').trim(),
    `Each crawl option as the manifest of ${latest} records it.`,
  );
  await page.close();
});

test('a domain page shows its documents, its errors and its size and availability over time', async () => {
  const page = await browser.context.newPage();
  const withErrors = built.data.domains.find((d) => (d.latest?.errors.rows.length ?? 0) > 0);
  assert.ok(withErrors?.latest, 'the simulated Web has a PLD with errors');
  await page.goto(`${server.url}domains/${withErrors.slug}/`);
  const shown = await page.evaluate(() => ({
    chart: document.querySelector('#trend + figure .chart')?.getAttribute('aria-label') ?? '',
    errors: [...document.querySelectorAll('#errors + div table tbody tr td:first-child')].map(
      (td) => td.textContent,
    ),
    documents: document.querySelectorAll('#documents ~ div table tbody tr').length,
  }));
  assert.match(shown.chart, /attempted in each weekly snapshot, and how many of them returned RDF/);
  for (const [code] of withErrors.latest.errors.rows)
    assert.ok(shown.errors.includes(String(code)), String(code));
  assert.ok(shown.documents >= withErrors.latest.listed.rows.length);
  assert.equal(withErrors.latest.listed.rows.length, Math.min(50, withErrors.latest.documents));
  await page.close();
});

test('the Errata page, linked from every page, lists each erratum; the Data page defines every figure', async () => {
  const errata = [...pages.keys()].find((u) => u.endsWith('/errata/'));
  assert.ok(errata, 'the Errata page is reached from the home page');
  assert.equal(pages.get(errata)?.status, 200);
  const html = await readFile(join(work, 'dist', 'errata', 'index.html'), 'utf8');
  assert.match(html, /id="availability-304"/);
  // the series is published by the current code: its files state the corrected values
  assert.match(html, /No snapshot on this portal states a wrong value/);
  const data = await readFile(join(work, 'dist', 'data', 'index.html'), 'utf8');
  assert.match(data, /id="definitions"/);
  assert.match(data, /<td>availability change<\/td>/);
});

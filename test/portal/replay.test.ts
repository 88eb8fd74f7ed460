/**
 * The Replay page (site/src/pages/replay.astro) in Chromium: ReplayWeb.page, served by the portal
 * itself, opens the newest weekly snapshot's WACZ and gives back the bytes the crawler received, for
 * a document archived in full and for one archived as a revisit of the week before (its record lies
 * in the package only as a record the revisit refers to). Two weekly snapshots of the simulated Web
 * over real HTTP; nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildPortal, type PortalServer, servePortal } from '../../pipeline/portal/index.ts';
import { REPLAY_BUNDLE } from '../../pipeline/portal/replay-bundle.ts';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { openDuckDb, queryRows } from '../../pipeline/snapshot/index.ts';
import { pointedRecord, splitRecord } from '../archive/warc-reader.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { openBrowser, refuseBeyondLocalhost, type TestBrowser } from './browser.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK1 = '2026-01-05';
const WEEK2 = '2026-01-12';
let sim: SimWeb;
let work: string;
let root: string;
let site: string;
let portal: PortalServer;
let browser: TestBrowser;
let page: Page;
/** Requests the browser tried to send beyond 127.0.0.1 (all refused). */
let outside: string[];
let collection: string | undefined;
/** How often to look again while ReplayWeb.page loads (a loaded machine can take minutes); a bound, not a time limit of the test. */
const POLLS = 1200;

before(async () => {
  sim = await startSimWeb({ seed: 34, docs: 400, plds: 24, latencyScale: 0, faults: 0, now: W0 });
  work = await mkdtemp(join(tmpdir(), 'portal-replay-'));
  root = join(work, 'snapshots');
  site = join(work, 'site');
  const kernel = rdfDocuments(sim, W0);
  for (const at of [W0, W0 + WEEK]) {
    assert.equal((await simWeekly(sim, root, at, kernel, { adaptiveRounds: 0 })).status, 'published');
  }
  portal = await servePortal({ dir: site });
  await buildPortal({ root, out: site, dataDir: join(work, 'data'), baseUrl: portal.url });
  browser = await openBrowser();
  outside = await refuseBeyondLocalhost(browser.context);
  // the collection ReplayWeb.page made of the WACZ, named by the app as it asks its worker about it
  browser.context.on('request', (request) => {
    collection ??= /\/w\/api\/c\/(id-[0-9a-f]+)/.exec(request.url())?.[1];
  });
  page = await browser.context.newPage();
  await page.goto(`${portal.url}replay/`);
});

after(async () => {
  await page?.close();
  await browser?.close();
  await portal?.close();
  sim.close();
  await rm(work, { recursive: true, force: true });
});

/**
 * A week-two document archived as `kind` (a `revisit` record of week one's, or a `response` record
 * of a body that changed): its URL, the time it was fetched, and the SHA-256 of its body as the
 * crawler decoded it (content_sha256), which is what the browser gets once it undoes the encoding.
 */
async function weekTwoDocument(
  kind: 'revisit' | 'response',
): Promise<{ url: string; ts: string; sha256: string }> {
  const session = await openDuckDb();
  try {
    const table = (week: string) => `read_parquet('${join(root, week, 'documents.parquet')}')`;
    const [row] = await queryRows(
      session.connection,
      `SELECT b.final_url, strftime(b.fetched_at, '%Y%m%d%H%M%S'), b.content_sha256, b.warc_filename,
         b.warc_offset, b.warc_length
       FROM ${table(WEEK2)} b JOIN ${table(WEEK1)} a USING (url)
       WHERE b.status = 200 AND b.downloaded_by = b.url AND b.final_url = b.url AND b.error IS NULL
         AND b.content_sha256 ${kind === 'revisit' ? '=' : '<>'} a.content_sha256
       ORDER BY b.url LIMIT 1`,
    );
    assert.ok(row, `a ${kind} document in week two`);
    const pointer = { filename: row[3] as string, offset: Number(row[4]), length: Number(row[5]) };
    assert.equal(
      splitRecord(pointedRecord(join(root, WEEK2), pointer).record).headers.get('warc-type'),
      kind,
    );
    return { url: row[0] as string, ts: row[1] as string, sha256: row[2] as string };
  } finally {
    session.close();
  }
}

/**
 * What ReplayWeb.page's worker answers `address` in the frame it controls; null while there is no
 * such frame yet, or when the frame navigated during the fetch (the app reloads it as it starts).
 */
async function fetchInReplayFrame(address: string): Promise<{ status: number; bytes: number[] } | null> {
  const frame = page.frames().find((f) => f.url().startsWith(`${portal.url}${REPLAY_BUNDLE.dir}/`));
  if (!frame) return null;
  return frame
    .evaluate(async (a) => {
      if (navigator.serviceWorker.controller === null) return null;
      const response = await fetch(a);
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, bytes: Array.from(bytes) };
    }, address)
    .catch(() => null);
}

/** The body ReplayWeb.page answers for `url` at `ts` (`id_`: as archived, not rewritten), asked again until the archive is loaded. */
async function replayed(url: string, ts: string): Promise<Buffer> {
  let last = 'no answer';
  for (let tries = 0; tries < POLLS; tries++) {
    if (collection !== undefined) {
      const address = `${portal.url}${REPLAY_BUNDLE.dir}/w/${collection}/${ts}id_/${url}`;
      const answer = await fetchInReplayFrame(address);
      if (answer?.status === 200) return Buffer.from(answer.bytes);
      last = `${answer?.status ?? 'no frame'} for ${address}`;
    }
    await page.waitForTimeout(250);
  }
  assert.fail(`ReplayWeb.page never answered ${url} (collection ${collection}): ${last}`);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

test('a document archived in full replays byte for byte', async () => {
  const doc = await weekTwoDocument('response');
  assert.equal(sha256(await replayed(doc.url, doc.ts)), doc.sha256, doc.url);
});

test('a document archived as a revisit replays as the record it refers to, byte for byte', async () => {
  const doc = await weekTwoDocument('revisit');
  assert.equal(sha256(await replayed(doc.url, doc.ts)), doc.sha256, doc.url);
});

test('ReplayWeb.page and the WACZ come from the site, nothing from elsewhere', async () => {
  assert.deepEqual(outside, []);
  const scripts = await page.$$eval('script', (list) => list.map((s) => (s as HTMLScriptElement).src));
  assert.deepEqual(scripts, [`${portal.url}${REPLAY_BUNDLE.dir}/${REPLAY_BUNDLE.ui}`]);
  assert.deepEqual((await readdir(join(site, REPLAY_BUNDLE.dir))).sort(), [
    REPLAY_BUNDLE.frame,
    REPLAY_BUNDLE.sw,
    REPLAY_BUNDLE.ui,
  ]);
  // the one archive the portal publishes: the newest weekly snapshot's
  assert.deepEqual((await readdir(join(site, 'replay'))).sort(), [`${WEEK2}.wacz`, 'index.html']);
  const wacz = await readFile(join(site, 'replay', `${WEEK2}.wacz`));
  assert.equal(wacz.subarray(0, 4).toString('latin1'), 'PK\x03\x04');
});

/**
 * The adaptive part of a weekly crawl deduplicated too, over real HTTP: a kernel of a third of the
 * simulated Web's documents, the others reached by links. In the second week an unchanged document
 * the kernel does not hold, observed the week before, is archived as a revisit of that week's
 * record, found through the last observations (no validators: a full GET, a 200); verify --deep and
 * a reparse resolve those revisits to the same statements.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { IDENTICAL_PAYLOAD_DIGEST, readArchivedResponse } from '../../pipeline/archive/index.ts';
import { clockStartingAt } from '../../pipeline/core/index.ts';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { readManifest, reparseSnapshot, verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { readRows as rows } from '../snapshot/read-rows.ts';
import { sha256, splitRecord } from './warc-reader.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK1 = '2026-01-05';
const WEEK2 = '2026-01-12';
let sim: SimWeb;
let root: string;

const documents = (r: string, week: string) => `read_parquet('${join(r, week, 'documents.parquet')}')`;

before(async () => {
  sim = await startSimWeb({ seed: 34, docs: 400, plds: 24, latencyScale: 0, faults: 0, now: W0 });
  root = mkdtempSync(join(tmpdir(), 'revisit-adaptive-'));
  const kernel = rdfDocuments(sim, W0).filter((_, i) => i % 3 === 0);
  for (const at of [W0, W0 + WEEK]) {
    assert.equal((await simWeekly(sim, root, at, kernel, { adaptiveRounds: 2 })).status, 'published');
  }
});

after(() => sim.close());

/** The adaptive documents of week 2 fetched whole, unchanged since week 1: their pointers. */
async function unchangedAdaptive(): Promise<Array<{ filename: string; offset: number; length: number }>> {
  const found = await rows(`SELECT b.warc_filename, b.warc_offset, b.warc_length
    FROM ${documents(root, WEEK2)} b JOIN ${documents(root, WEEK1)} a USING (url)
    WHERE b.segment <> 'kernel' AND b.downloaded_by = b.url AND b.final_url = a.final_url
      AND b.content_sha256 = a.content_sha256 AND b.status = 200 AND b.error IS NULL
      AND a.error IS NULL AND b.warc_filename IS NOT NULL AND a.warc_filename IS NOT NULL
    ORDER BY b.url`);
  return found.map((r) => ({ filename: r[0] as string, offset: Number(r[1]), length: Number(r[2]) }));
}

test('an adaptive URL unchanged since the week before is archived as a revisit of its record there', async () => {
  const pointers = await unchangedAdaptive();
  assert.ok(pointers.length > 30, `${pointers.length} unchanged adaptive documents`);
  const limits = { compressed: 1 << 24, inflated: 1 << 24 };
  const referents = (name: string) => (name.startsWith(`${WEEK1}-`) ? join(root, WEEK1) : null);
  for (const pointer of pointers) {
    const file = readFileSync(join(root, WEEK2, pointer.filename));
    const { headers } = splitRecord(
      gunzipSync(file.subarray(pointer.offset, pointer.offset + pointer.length)),
    );
    assert.equal(headers.get('warc-type'), 'revisit', `${pointer.filename} at ${pointer.offset}`);
    assert.equal(headers.get('warc-profile'), IDENTICAL_PAYLOAD_DIGEST);
    assert.ok(headers.get('warc-refers-to-filename')?.startsWith(`${WEEK1}-`));
    const response = await readArchivedResponse(join(root, WEEK2), pointer, limits, { referents });
    assert.ok(response.payload.length > 0);
    assert.equal(sha256(response.payload), headers.get('warc-payload-digest'));
  }
  assert.deepEqual((await readManifest(join(root, WEEK2))).dependsOn, [WEEK1]);
});

test('verify --deep and a reparse resolve the adaptive revisits to the same statements', async () => {
  await verifySnapshot(join(root, WEEK2), { deep: true });
  const again = mkdtempSync(join(tmpdir(), 'revisit-adaptive-reparse-'));
  for (const week of [WEEK1, WEEK2]) {
    await reparseSnapshot({ folder: join(root, week), root: again, clock: clockStartingAt(W0 + 3 * WEEK) });
  }
  const quads = (
    r: string,
  ) => `SELECT q.graph, q.subject, q.predicate, q.object, q.object_kind, q.datatype, q.lang
    FROM read_parquet('${join(r, WEEK2, 'quads.parquet')}') q
    JOIN ${documents(root, WEEK2)} d ON q.graph = d.final_url WHERE d.segment <> 'kernel'`;
  const [[total]] = await rows(`SELECT count(*) FROM (${quads(root)})`);
  assert.ok(Number(total) > 500, `${total} adaptive statements`);
  assert.deepEqual(
    await rows(`(${quads(root)} EXCEPT ${quads(again)}) UNION ALL (${quads(again)} EXCEPT ${quads(root)})`),
    [],
  );
});

/**
 * The deduplicated archive over real HTTP: two weekly snapshots of the simulated Web, the second
 * archiving every unchanged body as a revisit of the first week's record and every 304 as a
 * server-not-modified revisit. Every file is read by two independent parsers (warcio, node-warc)
 * and checked against the WARC/1.1 grammar; verify (also --deep) and reparse resolve the revisits
 * across folders to the exact bytes; without the first folder verify fails naming it.
 */
import assert from 'node:assert/strict';
import { cpSync, createReadStream, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import {
  IDENTICAL_PAYLOAD_DIGEST,
  readArchivedResponse,
  SERVER_NOT_MODIFIED,
} from '../../pipeline/archive/index.ts';
import { clockStartingAt } from '../../pipeline/core/index.ts';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { openDuckDb, readManifest, reparseSnapshot, verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { httpPayload, indexerLines, readWithNodeWarc, sha256, splitRecord } from './warc-reader.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK1 = '2026-01-05';
const WEEK2 = '2026-01-12';
let sim: SimWeb;
let root: string;

async function rows(sql: string): Promise<unknown[][]> {
  const session = await openDuckDb();
  try {
    return (await session.connection.runAndReadAll(sql)).getRows();
  } finally {
    session.close();
  }
}

const documents = (r: string, week: string) => `read_parquet('${join(r, week, 'documents.parquet')}')`;
const warcFiles = async (week: string) =>
  (await readManifest(join(root, week))).files.map((f) => f.name).filter((n) => n.endsWith('.warc.gz'));

before(async () => {
  sim = await startSimWeb({ seed: 33, docs: 400, plds: 24, latencyScale: 0, faults: 0, now: W0 });
  root = mkdtempSync(join(tmpdir(), 'revisit-'));
  const kernel = rdfDocuments(sim, W0);
  for (const at of [W0, W0 + WEEK]) {
    assert.equal((await simWeekly(sim, root, at, kernel, { adaptiveRounds: 0 })).status, 'published');
  }
});

after(() => sim.close());

/** The record a pointer names in a week's folder, split by the WARC/1.1 grammar. */
function recordAt(week: string, pointer: { filename: string; offset: number; length: number }) {
  const file = readFileSync(join(root, week, pointer.filename));
  return splitRecord(gunzipSync(file.subarray(pointer.offset, pointer.offset + pointer.length)));
}

const pointerOf = (row: unknown[]) => ({
  filename: row[0] as string,
  offset: Number(row[1]),
  length: Number(row[2]),
});

test('an unchanged body is archived as a revisit of the first week, a 304 as server-not-modified', async () => {
  const unchanged = await rows(`SELECT b.warc_filename, b.warc_offset, b.warc_length, b.status, b.validation
    FROM ${documents(root, WEEK2)} b JOIN ${documents(root, WEEK1)} a USING (url)
    WHERE b.downloaded_by = b.url AND a.downloaded_by = a.url AND b.final_url = a.final_url
      AND b.content_sha256 = a.content_sha256 AND b.error IS NULL AND b.warc_filename IS NOT NULL`);
  assert.ok(unchanged.length > 100, `${unchanged.length} unchanged documents`);
  const profiles = new Map<string, number>();
  for (const row of unchanged) {
    const { headers: head, block } = recordAt(WEEK2, pointerOf(row));
    const status = row[3];
    assert.equal(head.get('warc-type'), 'revisit', `${row[0]} at ${row[1]}`);
    assert.equal(httpPayload(block).length, 0);
    const profile = head.get('warc-profile')!;
    profiles.set(profile, (profiles.get(profile) ?? 0) + 1);
    assert.equal(profile, status === 304 ? SERVER_NOT_MODIFIED : IDENTICAL_PAYLOAD_DIGEST);
    assert.ok(head.get('warc-refers-to-filename')?.startsWith(`${WEEK1}-`));
  }
  assert.ok((profiles.get(SERVER_NOT_MODIFIED) ?? 0) > 10, JSON.stringify([...profiles]));
  assert.ok((profiles.get(IDENTICAL_PAYLOAD_DIGEST) ?? 0) > 10, JSON.stringify([...profiles]));
  assert.deepEqual((await readManifest(join(root, WEEK2))).dependsOn, [WEEK1]);
  assert.equal((await readManifest(join(root, WEEK1))).dependsOn, undefined);
});

test('every record of every file reads with warcio and node-warc, revisits as WARC/1.1 says', async () => {
  let revisits = 0;
  for (const week of [WEEK1, WEEK2]) {
    for (const name of await warcFiles(week)) {
      const path = join(root, week, name);
      const byWarcio = [];
      for await (const record of new WARCParser(createReadStream(path))) {
        byWarcio.push(record);
        await record.readFully();
      }
      const byNodeWarc = await readWithNodeWarc(path);
      assert.equal(byNodeWarc.length, byWarcio.length, name);
      for (const [i, record] of byWarcio.entries()) {
        assert.equal(byNodeWarc[i].warcHeader['WARC-Type'], record.warcType);
        if (record.warcType !== 'revisit') continue;
        revisits++;
        for (const field of [
          'WARC-Profile',
          'WARC-Refers-To-Target-URI',
          'WARC-Refers-To-Date',
          'WARC-Date',
        ]) {
          assert.ok(record.warcHeader(field), `${name}: a revisit without ${field}`);
        }
        assert.equal(record.warcHeader('Content-Type'), 'application/http; msgtype=response');
        assert.match(record.warcHeader('WARC-Refers-To-Date')!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
        if (record.warcHeader('WARC-Profile') === IDENTICAL_PAYLOAD_DIGEST)
          assert.match(record.warcHeader('WARC-Payload-Digest')!, /^sha256:[0-9a-f]{64}$/);
        // headers kept, no body: the block is the HTTP head and ends with it
        assert.ok(record.httpHeaders, `${name}: a revisit without its HTTP headers`);
        assert.equal((await record.readFully()).length, 0);
        assert.equal(Object.keys(byNodeWarc[i].httpInfo?.headers ?? {}).length > 0, true);
      }
    }
  }
  assert.ok(revisits > 100);
});

test('the index lists revisits as Webrecorder indexes them', async () => {
  const files = await warcFiles(WEEK2);
  const ours = gunzipSync(readFileSync(join(root, WEEK2, 'index.cdx.gz')))
    .toString()
    .trimEnd()
    .split('\n');
  const theirs = (await indexerLines(join(root, WEEK2), files)).sort((a, b) =>
    Buffer.compare(Buffer.from(a), Buffer.from(b)),
  );
  assert.deepEqual(ours, theirs);
  assert.ok(ours.some((line) => line.includes('"mime":"warc/revisit"')));
});

test('a revisit reads as the bytes of the record it refers to, in the earlier folder', async () => {
  const candidates = await rows(`SELECT warc_filename, warc_offset, warc_length, content_sha256
    FROM ${documents(root, WEEK2)} WHERE status = 200 AND error IS NULL AND carried_from IS NULL
      AND downloaded_by = url AND warc_filename IS NOT NULL ORDER BY url`);
  const limits = { compressed: 1 << 24, inflated: 1 << 24 };
  const referents = (name: string) => (name.startsWith(`${WEEK1}-`) ? join(root, WEEK1) : null);
  let resolved = 0;
  for (const row of candidates) {
    const pointer = pointerOf(row);
    const { headers: head } = recordAt(WEEK2, pointer);
    if (head.get('warc-profile') !== IDENTICAL_PAYLOAD_DIGEST) continue;
    const original = recordAt(WEEK1, {
      filename: head.get('warc-refers-to-filename')!,
      offset: Number(head.get('warc-refers-to-offset')),
      length: Number(head.get('warc-refers-to-length')),
    });
    assert.equal(original.headers.get('warc-type'), 'response');
    assert.equal(original.headers.get('warc-record-id'), head.get('warc-refers-to'));
    assert.equal(original.headers.get('warc-date'), head.get('warc-refers-to-date'));
    assert.equal(original.headers.get('warc-target-uri'), head.get('warc-refers-to-target-uri'));
    assert.equal(sha256(httpPayload(original.block)), head.get('warc-payload-digest'));
    const response = await readArchivedResponse(join(root, WEEK2), pointer, limits, { referents });
    assert.ok(response.payload.equals(httpPayload(original.block)));
    if (!response.headers.has('content-encoding')) assert.equal(sha256(response.payload), `sha256:${row[3]}`);
    if (resolved++ === 0) {
      // a reader not told where revisits may refer reads no payload from anywhere
      await assert.rejects(
        readArchivedResponse(join(root, WEEK2), pointer, limits),
        /no snapshot its folder depends on/,
      );
    }
  }
  assert.ok(resolved > 10, `${resolved} revisits resolved`);
});

test('verify and verify --deep resolve revisits; reparse reads the same statements back', async () => {
  await verifySnapshot(join(root, WEEK2), { deep: true });
  const again = mkdtempSync(join(tmpdir(), 'revisit-reparse-'));
  await assert.rejects(
    reparseSnapshot({ folder: join(root, WEEK2), root: again, clock: clockStartingAt(W0 + 3 * WEEK) }),
    new RegExp(`depends on snapshot ${WEEK1}`),
  );
  for (const week of [WEEK1, WEEK2]) {
    await reparseSnapshot({ folder: join(root, week), root: again, clock: clockStartingAt(W0 + 3 * WEEK) });
  }
  const quads = (r: string) =>
    `SELECT graph, subject, predicate, object, object_kind, datatype, lang FROM read_parquet('${join(r, WEEK2, 'quads.parquet')}')`;
  const [[total]] = await rows(`SELECT count(*) FROM (${quads(root)})`);
  assert.ok(Number(total) > 1000);
  assert.deepEqual(
    await rows(`(${quads(root)} EXCEPT ${quads(again)}) UNION ALL (${quads(again)} EXCEPT ${quads(root)})`),
    [],
  );
  await verifySnapshot(join(again, WEEK2), { deep: true });
});

test('a changed byte in the record a revisit refers to fails verify of the later folder', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'revisit-damaged-'));
  for (const week of [WEEK1, WEEK2]) cpSync(join(root, week), join(copy, week), { recursive: true });
  let referred: { filename: string; offset: number; length: number } | null = null;
  for (const candidate of await rows(`SELECT warc_filename, warc_offset, warc_length FROM ${documents(root, WEEK2)}
      WHERE status = 200 AND carried_from IS NULL AND warc_filename IS NOT NULL ORDER BY url`)) {
    const { headers } = recordAt(WEEK2, pointerOf(candidate));
    if (headers.get('warc-profile') !== IDENTICAL_PAYLOAD_DIGEST) continue;
    referred = {
      filename: headers.get('warc-refers-to-filename')!,
      offset: Number(headers.get('warc-refers-to-offset')),
      length: Number(headers.get('warc-refers-to-length')),
    };
    break;
  }
  assert.ok(referred);
  const file = join(copy, WEEK1, referred.filename);
  const bytes = readFileSync(file);
  bytes[referred.offset + Math.floor(referred.length / 2)] ^= 0xff;
  writeFileSync(file, bytes);
  await assert.rejects(verifySnapshot(join(copy, WEEK2)), (error: Error) =>
    error.message.includes(`${referred.filename} at ${referred.offset}`),
  );
});

test('without the folder its revisits refer to, verify fails naming it', async () => {
  renameSync(join(root, WEEK1), join(root, 'moved-away'));
  try {
    await assert.rejects(verifySnapshot(join(root, WEEK2)), (error: Error) =>
      error.message.includes(`depends on snapshot ${WEEK1}`),
    );
  } finally {
    renameSync(join(root, 'moved-away'), join(root, WEEK1));
  }
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import jsonld from 'jsonld';
import { Parser, type Quad, Store } from 'n3';
import { listSnapshots, readManifest } from '../../pipeline/snapshot/index.ts';
import { computePortalData, type PortalData, statsOptions } from '../../pipeline/stats/index.ts';
import { publishSampleWeeks } from '../snapshot/sample-crawl.ts';

const BASE = 'https://observatory.example/portal/';
/** The series IRI: a fragment of the portal's dataset page, so that it resolves (test/portal checks the page). */
const SERIES = `${BASE}dataset/#series`;
const IANA = 'https://www.iana.org/assignments/media-types/';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const VCARD = 'http://www.w3.org/2006/vcard/ns#';
const DCT = 'http://purl.org/dc/terms/';
const V = 'http://rdfs.org/ns/void#';
const DCAT = 'http://www.w3.org/ns/dcat#';
const SPDX = 'http://spdx.org/rdf/terms#';
let work: string;
let root: string;
let data: PortalData;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'stats-'));
  root = join(work, 'snapshots');
  await publishSampleWeeks(root);
  data = await computePortalData(statsOptions({ root, dataDir: join(work, 'data'), baseUrl: BASE }));
});
after(() => rm(work, { recursive: true, force: true }));

/** Checks a parsed description against the manifests: counts per snapshot, size and checksum per file. */
async function assertMatchesManifests(quads: Quad[]) {
  const store = new Store(quads);
  const one = (s: string | Quad['object'], p: string) => {
    const objects = store.getObjects(s, p, null);
    assert.equal(objects.length, 1, `${s} ${p}`);
    return objects[0].value;
  };
  const catalogue = await listSnapshots(root);
  assert.equal(store.getObjects(SERIES, `${V}subset`, null).length, catalogue.length);
  for (const entry of catalogue) {
    const manifest = await readManifest(join(root, entry.name));
    const node = `${BASE}snapshots/${entry.name}/`;
    assert.equal(one(node, `${DCAT}inSeries`), SERIES);
    assert.equal(Number(one(node, `${V}triples`)), manifest.stats.statements);
    assert.equal(Number(one(node, `${V}documents`)), manifest.stats.documents);
    const dists = store.getObjects(node, `${DCAT}distribution`, null);
    assert.equal(dists.length, manifest.files.length + 2);
    for (const f of manifest.files) {
      const dist = dists.find((d) => one(d.value, `${DCAT}downloadURL`) === `${node}${f.name}`);
      assert.ok(dist, f.name);
      assert.equal(Number(one(dist.value, `${DCAT}byteSize`)), f.bytes);
      const sum = store.getObjects(dist, `${SPDX}checksum`, null)[0];
      assert.equal(one(sum, `${SPDX}checksumValue`), f.sha256);
      // DCAT: media types are IANA IRIs; the gzipped dump is N-Quads, compressed with gzip
      const [type] = store.getObjects(dist, `${DCAT}mediaType`, null);
      assert.equal(type.termType, 'NamedNode', f.name);
      const expected = f.name.endsWith('.parquet')
        ? 'application/vnd.apache.parquet'
        : f.name.endsWith('.json')
          ? 'application/json'
          : 'application/n-quads';
      assert.equal(type.value, `${IANA}${expected}`);
      const compress = store.getObjects(dist, `${DCAT}compressFormat`, null).map((o) => o.value);
      assert.deepEqual(compress, f.name.endsWith('.gz') ? [`${IANA}application/gzip`] : []);
    }
  }
  return store;
}

/** The series' publisher name and contact point (vCard) as stated. */
function operators(store: Store) {
  const publisher = store.getObjects(SERIES, `${DCT}publisher`, null);
  const contact = store.getObjects(SERIES, `${DCAT}contactPoint`, null);
  assert.equal(publisher.length, 1);
  assert.equal(contact.length, 1);
  return {
    publisher: store.getObjects(publisher[0], `${FOAF}name`, null)[0]?.value,
    name: store.getObjects(contact[0], `${VCARD}fn`, null)[0]?.value,
    email: store.getObjects(contact[0], `${VCARD}hasEmail`, null)[0]?.value,
    url: store.getObjects(contact[0], `${VCARD}hasURL`, null)[0]?.value,
  };
}

test('dataset.ttl parses as Turtle and states the counts and checksums of the manifests', async () => {
  const text = await readFile(join(work, 'data', 'dataset.ttl'), 'utf8');
  const store = await assertMatchesManifests(new Parser({ format: 'text/turtle' }).parse(text));
  // nobody configured the operators: the description says so instead of inventing them
  const unset = operators(store);
  assert.match(unset.publisher ?? '', /publisher not configured: observatory portal --publisher/);
  assert.match(unset.name ?? '', /contact not configured: observatory portal --contact/);
  assert.equal(unset.url, `${BASE}about/#contact`);
});

test('dataset.ttl is valid Turtle for rapper (Raptor), triple for triple', async () => {
  const file = join(work, 'data', 'dataset.ttl');
  const r = spawnSync('rapper', ['-i', 'turtle', '-o', 'ntriples', file, BASE], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /error|warning/i);
  const parsed = new Parser({ format: 'text/turtle' }).parse(await readFile(file, 'utf8'));
  assert.equal(r.stdout.trim().split('\n').length, parsed.length);
});

test('a configured publisher and contact point are stated as given', async () => {
  const dataDir = join(work, 'configured');
  await computePortalData(
    statsOptions({ root, dataDir, baseUrl: BASE, publisher: 'Example Lab', contact: 'ops@example.org' }),
  );
  const text = await readFile(join(dataDir, 'dataset.ttl'), 'utf8');
  const stated = operators(new Store(new Parser({ format: 'text/turtle' }).parse(text)));
  assert.equal(stated.publisher, 'Example Lab');
  assert.equal(stated.email, 'mailto:ops@example.org');
  assert.equal(stated.url, undefined);
  assert.throws(() => statsOptions({ root, dataDir, contact: 'not an address' }), /--contact: expected/);
});

test('dataset.jsonld parses as JSON-LD and states the same', async () => {
  const doc = JSON.parse(await readFile(join(work, 'data', 'dataset.jsonld'), 'utf8'));
  const nquads = (await jsonld.toRDF(doc, { format: 'application/n-quads' })) as unknown as string;
  await assertMatchesManifests(new Parser({ format: 'N-Quads' }).parse(nquads));
});

test('urls.txt lists the catalogue, the latest alias, every file and the file list of every snapshot, under the base URL', async () => {
  const urls = (await readFile(join(work, 'data', 'urls.txt'), 'utf8')).trim().split('\n');
  const expected = data.snapshots.flatMap((s) => [
    ...s.files.map((f) => `${BASE}snapshots/${s.name}/${f.name}`),
    `${BASE}snapshots/${s.name}/urls.txt`,
  ]);
  assert.deepEqual(urls, [`${BASE}snapshots/index.json`, `${BASE}snapshots/latest.json`, ...expected]);
  for (const s of data.snapshots) assert.ok(s.files.some((f) => f.name === 'manifest.json'));
});

test('a rebuild reads per-snapshot digests from the cache instead of querying again', async () => {
  const cache = join(work, 'data', 'cache');
  const digests = async () => (await readdir(cache)).filter((f) => f.startsWith('digest-'));
  const files = await digests();
  assert.equal(files.length, 2);
  const again = await computePortalData(statsOptions({ root, dataDir: join(work, 'data'), baseUrl: BASE }));
  assert.deepEqual(again.snapshots, data.snapshots);
  assert.deepEqual(await digests(), files);
});

test('the data dictionary and the example queries are the project docs', async () => {
  assert.deepEqual(
    data.dictionary.map((t) => t.file),
    [
      'documents.parquet',
      'quads.parquet',
      'redirects.parquet',
      'changes.parquet',
      'delta.parquet',
      'schedule.parquet',
    ],
  );
  const docs = new URL('../../docs/queries/', import.meta.url).pathname;
  for (const q of data.queries) assert.equal(q.sql, await readFile(join(docs, q.file), 'utf8'));
  assert.equal(data.queries.length, (await readdir(docs)).filter((f) => f.endsWith('.sql')).length);
});

test('observatory portal rejects a bad base URL with one line and exit code 2', () => {
  const cli = new URL('../../pipeline/cli.ts', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [cli, 'portal', '--root', root, '--base-url', 'ftp://x/'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});

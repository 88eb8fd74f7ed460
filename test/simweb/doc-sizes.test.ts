import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { simWebOptionsFromCli } from '../../pipeline/commands/simweb-options.ts';
import type { RdfFormat } from '../../pipeline/core/index.ts';
import { documentState } from '../../pipeline/simweb/document-state.ts';
import { docAddress } from '../../pipeline/simweb/documents.ts';
import { documentGraph } from '../../pipeline/simweb/graph.ts';
import {
  dereference,
  FORMATS,
  generateWeb,
  type SimWeb,
  startSimWeb,
  TRUTH_ACCEPT,
  truthRecords,
} from '../../pipeline/simweb/index.ts';
import { route } from '../../pipeline/simweb/router.ts';
import { serialize } from '../../pipeline/simweb/serialize.ts';
import { countStatements } from './count-statements.ts';
import { simGet } from './sim-client.ts';

const DYLDO_WEEK = { seed: 1, docs: 200_000, plds: 650, faults: 0, docSizes: 'dyldo' } as const;

test('the small profile is the default and serves the same bytes and truth as before profiles existed', () => {
  // digest of 656 answers (every syntax) and the whole truth, taken before the dyldo profile was added
  const web = generateWeb({ seed: 7, docs: 3000, plds: 120 });
  assert.equal(web.options.docSizes, 'small');
  const h = createHash('sha256');
  const t = Date.UTC(2026, 8, 1);
  for (let d = 0; d < web.docCount; d += 37) {
    const u = new URL(docAddress(web, d).docUrl);
    for (const f of FORMATS) {
      const r = route(
        web,
        { host: u.hostname, path: u.pathname, search: '', accept: f.mediaType, ifNoneMatch: undefined },
        t,
      );
      h.update(`${r.status} ${JSON.stringify(r.headers)} ${JSON.stringify(r.outcome)}\n`);
      h.update(r.body());
    }
  }
  for (const rec of truthRecords(web, t)) h.update(JSON.stringify(rec));
  assert.equal(h.digest('hex'), '4eda18d0da8de055c1db0d5177f36d19963b411d1ca5ac09d978fdb88c347d51');
});

test('--doc-sizes selects the profile; anything else is refused naming the flag', () => {
  const cli = { port: '0', seed: '1', docs: '5000', plds: '300', faults: '1', latencyScale: '0' };
  assert.equal(simWebOptionsFromCli({ ...cli, docSizes: 'dyldo' }).docSizes, 'dyldo');
  assert.equal(simWebOptionsFromCli({ ...cli, docSizes: 'small' }).docSizes, 'small');
  assert.throws(() => simWebOptionsFromCli({ ...cli, docSizes: 'huge' }), {
    message: '--doc-sizes: expected small or dyldo, got "huge"',
  });
});

test('a 200,000-document dyldo Web: most documents tens of statements, a heavy tail to 100,000, 16 million in all', () => {
  const web = generateWeb(DYLDO_WEEK);
  const sizes: number[] = [];
  for (const r of truthRecords(web, web.options.epochMs))
    if (r.kind === 'document' && r.rdf) sizes.push(r.statements!);
  sizes.sort((a, b) => a - b);
  const total = sizes.reduce((a, b) => a + b, 0);
  const at = (q: number) => sizes[Math.floor(q * (sizes.length - 1))];
  const shape = {
    median: at(0.5),
    mean: total / sizes.length,
    p90: at(0.9),
    p99: at(0.99),
    max: sizes.at(-1)!,
  };
  const s = JSON.stringify({ ...shape, total, documents: sizes.length });
  // measured (seed 1): median 33, mean 111, p90 95, p99 1,265, max 99,971, 19.6 million statements
  assert.ok(shape.median >= 20 && shape.median <= 50, s);
  assert.ok(shape.mean >= 80 && shape.mean <= 150, s);
  assert.ok(shape.p90 <= 200, s);
  assert.ok(shape.p99 >= 500 && shape.p99 <= 5000, s);
  assert.ok(shape.max >= 90_000 && shape.max <= 100_000, s);
  assert.ok(total >= 16_000_000, s);
});

test('whole-parsed syntaxes stay under 5,000 statements; trickling documents keep their small core', () => {
  const web = generateWeb({ seed: 3, docs: 50_000, plds: 300, faults: 3, docSizes: 'dyldo' });
  let trickling = 0;
  for (let d = 0; d < web.docCount; d++) {
    const s = documentState(web, d);
    if (s.format === 'jsonld' || s.format === 'rdfa') assert.ok(s.extraStatements < 4_951, `${d}`);
    if (s.fault === 'trickle') {
      trickling++;
      assert.equal(s.extraStatements, 0);
    }
  }
  assert.ok(trickling > 0);
});

test('dyldo documents parse with the exact count in every syntax, ISO-8859-1 included', async () => {
  const web = generateWeb({ seed: 2, docs: 4000, plds: 80, docSizes: 'dyldo' });
  const version = { real: 2, all: 3, stampedAt: Date.UTC(2026, 1, 1), modifiedAt: Date.UTC(2026, 1, 1) };
  let large = 0;
  for (let d = 0; d < web.docCount; d += 97) {
    const s = documentState(web, d);
    if (s.extraStatements > 3_000) continue;
    if (s.extraStatements > 100) large++;
    const quads = documentGraph(web, s, version);
    for (const { format } of FORMATS) {
      for (const latin1 of format === 'rdfxml' || format === 'rdfa' ? [false, true] : [false]) {
        const body = serialize(quads, format, s.address.docUrl, { latin1 });
        const c = await countStatements(
          format,
          body.body.toString(latin1 ? 'latin1' : 'utf8'),
          s.address.docUrl,
        );
        assert.deepEqual(
          c,
          { statements: quads.length, error: null },
          `${s.address.docUrl} ${format} ${latin1}`,
        );
      }
    }
  }
  assert.ok(large > 0);
});

describe('the largest document of the dyldo week', () => {
  const web = generateWeb(DYLDO_WEEK);
  const state = documentState(web, 97_176);
  const version = (real: number) => ({ real, all: 4, stampedAt: web.options.epochMs, modifiedAt: 0 });
  const key = (q: { subject: { value: string }; predicate: { value: string }; object: { value: string } }) =>
    `${q.subject.value} ${q.predicate.value} ${q.object.value}`;

  test('holds distinct statements only, links to at most about a thousand other documents', () => {
    const quads = documentGraph(web, state, version(0));
    assert.ok(quads.length > 99_900, `${quads.length}`);
    assert.equal(new Set(quads.map((q) => `${key(q)} ${q.object.termType}`)).size, quads.length);
    const targets = new Set<string>();
    for (const q of quads) {
      if (q.object.termType !== 'NamedNode') continue;
      const u = new URL(q.object.value);
      u.hash = '';
      targets.add(u.href);
      assert.ok(web.hostIndex.has(u.hostname), u.href);
    }
    assert.ok(targets.size > 500 && targets.size <= 1_100, `${targets.size} link targets`);
  });

  test('a real change alters a few of its statements, not its bulk', () => {
    const stable = (real: number) =>
      new Set(
        documentGraph(web, state, version(real))
          .filter((q) => q.subject.termType !== 'BlankNode' && q.object.termType !== 'BlankNode')
          .map(key),
      );
    const [a, b] = [stable(0), stable(1)];
    const changed = [...a].filter((k) => !b.has(k)).length + [...b].filter((k) => !a.has(k)).length;
    assert.ok(changed > 10 && changed < 0.02 * a.size, `${changed} of ${a.size}`);
  });
});

describe('dyldo documents served over HTTP parse to the exact promised count', () => {
  let sim: SimWeb;
  before(async () => {
    sim = await startSimWeb({ ...DYLDO_WEEK, latencyScale: 0 });
  });
  after(() => sim.close());

  async function check(doc: number, formats: readonly RdfFormat[]): Promise<void> {
    const a = docAddress(sim.web, doc);
    const truth = dereference(sim.web, a.docUrl, sim.clock.now());
    assert.ok(truth.statements !== null && truth.error === null, `${a.docUrl}`);
    for (const format of formats) {
      const accept = FORMATS.find((f) => f.format === format)!.mediaType;
      const res = await simGet(sim, a.docUrl, { accept }, 60_000);
      assert.equal(res.status, 200, `${a.docUrl} ${format}`);
      const c = await countStatements(format, res.body.toString(), a.docUrl);
      assert.deepEqual(c, { statements: truth.statements, error: null }, `${a.docUrl} ${format}`);
    }
  }

  test('the 100,000-statement document in every streaming syntax (its publisher negotiates)', async () => {
    assert.equal(docAddress(sim.web, 97_176).pld.conneg, 'honour');
    await check(97_176, ['rdfxml', 'turtle', 'ntriples', 'nquads', 'trig', 'n3']);
  });

  test('a large document of each native syntax, and JSON-LD and RDFa at their cap', async () => {
    const todo = new Set<RdfFormat>(FORMATS.map((f) => f.format));
    let negotiated = 0;
    for (let d = 0; d < sim.web.docCount && todo.size > 0; d++) {
      const s = documentState(sim.web, d);
      if (!todo.has(s.format) || s.extraStatements < 1_000 || s.address.vocabulary) continue;
      const truth = dereference(sim.web, s.address.docUrl, sim.clock.now());
      if (truth.format !== s.format || truth.error !== null) continue;
      todo.delete(s.format);
      // honouring publishers also serve JSON-LD and RDFa on request
      if (s.address.pld.conneg === 'honour' && s.extraStatements <= 5_000) {
        await check(d, ['jsonld', 'rdfa']);
        negotiated++;
      }
      const res = await simGet(sim, s.address.docUrl, { accept: TRUTH_ACCEPT }, 60_000);
      const c = await countStatements(s.format, res.body.toString(), s.address.docUrl);
      assert.deepEqual(c, { statements: truth.statements, error: null }, `${s.address.docUrl} ${s.format}`);
    }
    assert.deepEqual([...todo], []);
    assert.ok(negotiated > 0);
  });
});

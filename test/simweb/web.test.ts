import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payLevelDomain, urlPld } from '../../pipeline/core/index.ts';
import { documentState } from '../../pipeline/simweb/document-state.ts';
import { docAddress } from '../../pipeline/simweb/documents.ts';
import { documentGraph } from '../../pipeline/simweb/graph.ts';
import { FORMATS, generateWeb, truthRecords } from '../../pipeline/simweb/index.ts';
import { coreDocs, staticLinks } from '../../pipeline/simweb/links.ts';
import { serialize } from '../../pipeline/simweb/serialize.ts';
import { countStatements } from './count-statements.ts';

const VERSION = { real: 2, all: 3, stampedAt: Date.UTC(2026, 1, 1), modifiedAt: Date.UTC(2026, 1, 1) };

test('PLD sizes follow a power law: 58% of PLDs with one document, a few with thousands', () => {
  const web = generateWeb({ seed: 1, docs: 100_000, plds: 650 });
  assert.equal(web.docCount, 100_000);
  const sizes = web.plds.map((p) => p.docCount).sort((a, b) => b - a);
  const singles = sizes.filter((s) => s === 1).length / sizes.length;
  assert.ok(Math.abs(singles - 0.58) < 0.01, `${singles}`);
  assert.ok(sizes[0] > 10_000 && sizes.filter((s) => s >= 1000).length >= 5, sizes.slice(0, 10).join(','));
  assert.ok(
    web.plds.some((p) => p.hosts.length >= 20),
    'some PLDs have many subdomains',
  );
  // hosts are real-looking names whose PLD the Public Suffix List agrees with
  for (const p of web.plds) for (const h of p.hosts) assert.equal(payLevelDomain(h), p.domain, h);
  assert.ok(web.plds.some((p) => p.domain.endsWith('.ac.uk')));
  // the last document of the largest id range is addressable without generating the rest
  const last = docAddress(web, 99_999);
  assert.equal(urlPld(last.docUrl), last.pld.domain);
});

test('same seed, same Web; another seed, another Web', () => {
  const bodies = (seed: number) => {
    const web = generateWeb({ seed, docs: 600, plds: 50 });
    return [5, 77, 300, 599].map((d) =>
      serialize(
        documentGraph(web, documentState(web, d), VERSION),
        'turtle',
        docAddress(web, d).docUrl,
      ).body.toString(),
    );
  };
  const truth = (seed: number) =>
    JSON.stringify([...truthRecords(generateWeb({ seed, docs: 600, plds: 50 }), Date.UTC(2026, 5, 1))]);
  assert.deepEqual(bodies(3), bodies(3));
  assert.equal(truth(3), truth(3));
  assert.notDeepEqual(bodies(3), bodies(4));
  assert.notEqual(truth(3), truth(4));
});

test('every syntax parses with the exact statement count, non-ASCII and ISO-8859-1 included', async () => {
  const web = generateWeb({ seed: 2, docs: 2000, plds: 80 });
  for (let d = 0; d < web.docCount; d += 211) {
    const s = documentState(web, d);
    const a = s.address;
    const quads = documentGraph(web, s, VERSION);
    for (const { format } of FORMATS) {
      for (const latin1 of format === 'rdfxml' || format === 'rdfa' ? [false, true] : [false]) {
        const body = serialize(quads, format, a.docUrl, { latin1 }).body.toString(latin1 ? 'latin1' : 'utf8');
        const c = await countStatements(format, body, a.docUrl);
        assert.deepEqual(
          c,
          { statements: quads.length, error: null },
          `${a.docUrl} ${format} latin1=${latin1}`,
        );
      }
    }
  }
});

test('a 2-hop crawl from the core documents reaches most PLDs', () => {
  const web = generateWeb({ seed: 5, docs: 20_000, plds: 400, faults: 0 });
  let frontier = new Set(coreDocs(web));
  const seen = new Set(frontier);
  for (let hop = 0; hop < 2; hop++) {
    const next = new Set<number>();
    for (const d of frontier) for (const t of staticLinks(web, d)) if (!seen.has(t)) next.add(t);
    for (const d of next) seen.add(d);
    frontier = next;
  }
  const plds = new Set([...seen].map((d) => docAddress(web, d).pld.index));
  const data = web.plds.filter((p) => p.kind === 'data').length;
  assert.ok(plds.size / data > 0.75, `${plds.size} of ${data}`);
});

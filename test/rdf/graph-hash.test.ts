import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Statement } from '../../pipeline/core/index.ts';
import { diffStatements, graphHash } from '../../pipeline/rdf/index.ts';
import { statementLine } from '../../pipeline/rdf/nquads-writer.ts';
import { link, literal } from './statements.ts';

const P = 'http://ex.org/p';
const S = 'http://ex.org/s';

const graph = [
  link(S, P, '_:a'),
  literal('_:a', 'http://ex.org/name', 'A'),
  link('_:a', P, '_:b'),
  literal('_:b', 'http://ex.org/name', 'B', 'en'),
  literal(S, 'http://ex.org/n', '1', null, 'http://www.w3.org/2001/XMLSchema#integer'),
];
const relabelled = graph.map((s) => ({
  ...s,
  subject: s.subject.replace('_:a', '_:zz').replace('_:b', '_:yy'),
  object: s.object.replace('_:a', '_:zz').replace('_:b', '_:yy'),
}));

function ring(n: number, prefix: string) {
  return Array.from({ length: n }, (_, i) => link(`_:${prefix}${i}`, P, `_:${prefix}${(i + 1) % n}`));
}

function clique(n: number, prefix: string) {
  const out = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) if (i !== j) out.push(link(`_:${prefix}${i}`, P, `_:${prefix}${j}`));
  return out;
}

test('graphHash: relabelled blank nodes and reordered triples give the same hash (RDFC-1.0)', async () => {
  const h = await graphHash(graph);
  assert.match(h, /^rdfc1:[0-9a-f]{64}$/);
  assert.equal(await graphHash([...relabelled].reverse()), h);
});

test('graphHash: an added triple or a changed literal changes the hash', async () => {
  const h = await graphHash(graph);
  assert.notEqual(await graphHash([...graph, link(S, P, 'http://ex.org/o')]), h);
  assert.notEqual(await graphHash([...graph.slice(0, 4), literal(S, 'http://ex.org/n', '2')]), h);
});

test('graphHash: duplicates do not count (a graph is a set)', async () => {
  assert.equal(await graphHash([...graph, graph[1]]), await graphHash(graph));
});

test('graphHash: graphs without blank nodes take the exact method, order-independent', async () => {
  const g = [link(S, P, 'http://ex.org/o'), literal(S, P, 'x', 'de')];
  const h = await graphHash(g);
  assert.match(h, /^exact:[0-9a-f]{64}$/);
  assert.equal(await graphHash([g[1], g[0]]), h);
  assert.notEqual(await graphHash([g[0], literal(S, P, 'x', 'fr')]), h);
});

test('graphHash: RDFC-1.0 tells a ring of 8 from two rings of 4', async () => {
  const one = await graphHash(ring(8, 'a'));
  const two = await graphHash([...ring(4, 'a'), ...ring(4, 'b')]);
  assert.match(one, /^rdfc1:/);
  assert.notEqual(one, two);
});

test('graphHash: a pathological blank-node graph falls back, still invariant under relabelling', async () => {
  const h = await graphHash(clique(6, 'a'));
  assert.match(h, /^fallback:[0-9a-f]{64}$/);
  assert.equal(await graphHash(clique(6, 'q').reverse()), h);
  assert.notEqual(await graphHash(clique(7, 'a')), h);
});

test('diffStatements: relabelling is no change; added and removed triples are listed', async () => {
  assert.deepEqual(await diffStatements(graph, relabelled), { added: [], removed: [], method: 'rdfc1' });
  const after = [
    ...relabelled.filter((s) => s.predicate !== 'http://ex.org/n'),
    link(S, P, 'http://ex.org/new'),
  ];
  const diff = await diffStatements(graph, after);
  assert.deepEqual(diff.added.map(statementLine), [
    '<http://ex.org/s> <http://ex.org/p> <http://ex.org/new> .',
  ]);
  assert.deepEqual(diff.removed.map(statementLine), [
    '<http://ex.org/s> <http://ex.org/n> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
  ]);
});

test('graphHash: published values are pinned (blank-node and other statements mixed)', async () => {
  // values from before RDFC-1.0 was given only the statements that mention blank nodes, and
  // before lines were written once for both deduplication and the canonical form
  const mixed = [
    ...graph,
    link(S, P, 'http://ex.org/o'),
    link('http://ex.org/o', P, S),
    literal(S, 'http://ex.org/name', 'S'),
  ];
  const rings = [...ring(4, 'r'), link(S, P, '_:r0'), link('_:x', P, '_:x'), link(S, P, S)];
  assert.equal(
    await graphHash(mixed),
    'rdfc1:60c9fcfb1175c8da7eb749a74344ca45f996e43da75feb39a1fcbb21be6aac1b',
  );
  const exact = [
    link(S, P, 'http://ex.org/o'),
    literal(S, P, 'quote " é', 'en'),
    literal(S, P, '1', null, 'http://www.w3.org/2001/XMLSchema#integer'),
    link(S, P, 'http://ex.org/o'),
  ];
  assert.equal(
    await graphHash(exact),
    'exact:696ae1aa94bf4fb6c06388fe46b6b0e87d2fe833b910193bcbd3160e1875ad96',
  );
  assert.equal(
    await graphHash(rings),
    'rdfc1:9ab6167a656ab640c0883326bf5cf5fa8470e4610b74c62fe6503dd7331ef683',
  );
});

/** A statement whose object is the triple term `text`, and one in the publisher's graph `graph`. */
const term = (subject: string, text: string): Statement => ({
  subject,
  predicate: P,
  object: text,
  objectKind: 'triple',
  datatype: null,
  lang: null,
});
const inGraph = (s: Statement, sourceGraph: string): Statement => ({ ...s, sourceGraph });
const directional = (value: string, direction: 'ltr' | 'rtl'): Statement => ({
  ...literal(S, P, value, 'en'),
  datatype: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString',
  direction,
});

test('graphHash: blank nodes inside triple terms are relabelled with the rest (RDFC-1.0 over a stand-in)', async () => {
  // _:b is the outer term's subject and has a name, _:c is inside the inner term and links to _:b
  const tt = (b: string, c: string, named = b) => [
    term(S, `<<( ${b} <${P}> <<( <${S}> <${P}> ${c} )>> )>>`),
    literal(named, 'http://ex.org/name', 'B'),
    link(c, P, b),
  ];
  const h = await graphHash(tt('_:b', '_:c'));
  assert.match(h, /^rdfc1:/);
  assert.equal(await graphHash(tt('_:x', '_:y').reverse()), h);
  // the name on the node inside the inner term instead is another graph
  assert.notEqual(await graphHash(tt('_:b', '_:c', '_:c')), h);
  // the canonical labels reach inside the triple terms
  const lines = (await diffStatements([], tt('_:q', '_:r'))).added.map(statementLine);
  assert.ok(
    lines.some((l) => /^<\S+> <\S+> <<\( _:c14n\d+ <\S+> <<\( <\S+> <\S+> _:c14n\d+ \)>> \)>> \.$/.test(l)),
    lines.join('\n'),
  );
});

test('graphHash: ground triple terms, base directions and graph names are part of the graph', async () => {
  const ground = term(S, `<<( <${S}> <${P}> "x"@en--ltr )>>`);
  const h = await graphHash([ground]);
  assert.match(h, /^exact:/);
  assert.notEqual(await graphHash([term(S, `<<( <${S}> <${P}> "x"@en )>>`)]), h);
  const ltr = await graphHash([directional('x', 'ltr')]);
  assert.notEqual(await graphHash([directional('x', 'rtl')]), ltr);
  assert.notEqual(await graphHash([literal(S, P, 'x', 'en')]), ltr);
  // with a blank node beside them, through RDFC-1.0
  const b = link('_:b', P, S);
  assert.notEqual(
    await graphHash([b, directional('x', 'ltr')]),
    await graphHash([b, directional('x', 'rtl')]),
  );
  const g = link(S, P, 'http://ex.org/o');
  assert.notEqual(await graphHash([inGraph(g, 'http://ex.org/g1')]), await graphHash([g]));
  assert.notEqual(
    await graphHash([inGraph(g, 'http://ex.org/g1')]),
    await graphHash([inGraph(g, 'http://ex.org/g2')]),
  );
  // a blank graph name is relabelled like any blank node
  assert.equal(
    await graphHash([inGraph(g, '_:g1'), inGraph(b, '_:g1')]),
    await graphHash([inGraph(b, '_:h'), inGraph(g, '_:h')]),
  );
  assert.notEqual(
    await graphHash([inGraph(g, '_:g1'), inGraph(b, '_:g1')]),
    await graphHash([inGraph(g, '_:g1'), inGraph(b, '_:g2')]),
  );
});

test('graphHash: the fallback takes triple terms and graph names too, still invariant under relabelling', async () => {
  const withTerms = (prefix: string) => [
    ...clique(6, prefix),
    term(S, `<<( _:${prefix}0 <${P}> "x" )>>`),
    inGraph(link(S, P, `_:${prefix}1`), `_:${prefix}g`),
  ];
  const h = await graphHash(withTerms('a'));
  assert.match(h, /^fallback:/);
  assert.equal(await graphHash(withTerms('q').reverse()), h);
  assert.notEqual(await graphHash([...clique(6, 'a'), term(S, '<<( _:a0 <http://ex.org/p> "y" )>>')]), h);
});

test("diffStatements: a statement moved to another of the publisher's graphs is one line removed, one added", async () => {
  const g = link(S, P, 'http://ex.org/o');
  const diff = await diffStatements([inGraph(g, 'http://ex.org/g1')], [inGraph(g, 'http://ex.org/g2')]);
  assert.deepEqual(
    { ...diff, added: diff.added.map(statementLine), removed: diff.removed.map(statementLine) },
    {
      added: [`<${S}> <${P}> <http://ex.org/o> <http://ex.org/g2> .`],
      removed: [`<${S}> <${P}> <http://ex.org/o> <http://ex.org/g1> .`],
      method: 'exact',
    },
  );
});

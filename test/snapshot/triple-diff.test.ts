import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Statement } from '../../pipeline/core/index.ts';
import { diffTriples } from '../../pipeline/snapshot/triple-diff.ts';

const P = 'http://example.org/p';
const t = (s: string, o: string): Statement => ({
  subject: s,
  predicate: P,
  object: o,
  objectKind: o.startsWith('_:') ? 'bnode' : o.startsWith('"') ? 'literal' : 'iri',
  datatype: o.startsWith('"') ? 'http://www.w3.org/2001/XMLSchema#string' : null,
  lang: null,
});

const cases: Array<[string, Statement[], Statement[], { added: number; removed: number }]> = [
  ['identical', [t('http://a', 'http://b')], [t('http://a', 'http://b')], { added: 0, removed: 0 }],
  [
    'reordered',
    [t('http://a', 'http://b'), t('http://a', 'http://c')],
    [t('http://a', 'http://c'), t('http://a', 'http://b')],
    { added: 0, removed: 0 },
  ],
  [
    'one added',
    [t('http://a', 'http://b')],
    [t('http://a', 'http://b'), t('http://a', 'http://c')],
    { added: 1, removed: 0 },
  ],
  ['one replaced', [t('http://a', 'http://b')], [t('http://a', 'http://c')], { added: 1, removed: 1 }],
  [
    'relabelled blank nodes',
    [t('http://a', '_:x1'), t('_:x1', '_:x2')],
    [t('_:y2', '_:y1'), t('http://a', '_:y2')],
    { added: 0, removed: 0 },
  ],
  [
    'blank node gains a triple',
    [t('http://a', '_:x1')],
    [t('http://a', '_:y1'), t('_:y1', 'http://z')],
    { added: 1, removed: 0 },
  ],
  ['everything new', [], [t('http://a', 'http://b'), t('http://a', '_:n')], { added: 2, removed: 0 }],
];

for (const [name, before, after, expected] of cases) {
  test(`diffTriples: ${name}`, () => assert.deepEqual(diffTriples(before, after), expected));
}

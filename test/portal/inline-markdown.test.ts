import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inlineMarkdown } from '../../site/src/lib/inline-markdown.ts';

const file = (path: string) => `https://src.example/blob/HEAD/${path}`;
const DICTIONARY = 'docs/data-dictionary.md';

test('inline Markdown and references to docs become pieces the site renders as elements', () => {
  const cases: [string, string, ReturnType<typeof inlineMarkdown>][] = [
    ['plain text', DICTIONARY, [{ kind: 'text', text: 'plain text' }]],
    [
      'the time *when* it was `fetched_at`',
      DICTIONARY,
      [
        { kind: 'text', text: 'the time ' },
        { kind: 'em', text: 'when' },
        { kind: 'text', text: ' it was ' },
        { kind: 'code', text: 'fetched_at' },
      ],
    ],
    [
      'see [the rule](crawling.md#conditional-re-visits) and [above](#definitions)',
      DICTIONARY,
      [
        { kind: 'text', text: 'see ' },
        { kind: 'link', text: 'the rule', href: file('docs/crawling.md#conditional-re-visits') },
        { kind: 'text', text: ' and ' },
        { kind: 'link', text: 'above', href: file('docs/data-dictionary.md#definitions') },
      ],
    ],
    [
      'a caption naming docs/crawling.md, and [RFC 9309](https://www.rfc-editor.org/rfc/rfc9309).',
      DICTIONARY,
      [
        { kind: 'text', text: 'a caption naming ' },
        { kind: 'link', text: 'docs/crawling.md', href: file('docs/crawling.md') },
        { kind: 'text', text: ', and ' },
        { kind: 'link', text: 'RFC 9309', href: 'https://www.rfc-editor.org/rfc/rfc9309' },
        { kind: 'text', text: '.' },
      ],
    ],
    // a glob in code is code; one in text is no emphasis; an escaped pipe of a Markdown table is a pipe
    [
      "`read_parquet('snapshots/*/x.parquet')` a * b, c \\| d",
      DICTIONARY,
      [
        { kind: 'code', text: "read_parquet('snapshots/*/x.parquet')" },
        { kind: 'text', text: ' a * b, c | d' },
      ],
    ],
    ['[all](queries/)', DICTIONARY, [{ kind: 'link', text: 'all', href: file('docs/queries/') }]],
  ];
  for (const [text, from, pieces] of cases) assert.deepEqual(inlineMarkdown(text, from, file), pieces, text);
});

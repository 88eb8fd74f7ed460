import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export { seededRandom as prng } from '../../pipeline/schedule/index.ts';

const FIXTURES = new URL('../rdf/fixtures/', import.meta.url).pathname;

/** A seed document for mutation: a golden fixture of the rdf tests, with the type it is served as. */
export interface FuzzSeed {
  readonly name: string;
  readonly body: Buffer;
  readonly contentType: string | null;
}

/** Every rdf fixture (all syntaxes, their error cases included) as fuzzing seeds. */
export function fuzzSeeds(): FuzzSeed[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.expected.json'))
    .map((f) => {
      const base = f.replace(/\.expected\.json$/, '');
      const file = readdirSync(FIXTURES).find(
        (g) => g.startsWith(`${base}.`) && !g.endsWith('.expected.json'),
      )!;
      const expected = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as { contentType?: string | null };
      return {
        name: base,
        body: readFileSync(join(FIXTURES, file)),
        contentType: expected.contentType ?? null,
      };
    });
}

const NASTY = [
  '<',
  '>',
  '"',
  "'",
  '\\',
  '{',
  '}',
  '[',
  ']',
  '@',
  '_:',
  '\u0000',
  '\uFFFD',
  '\u202E',
  '&',
  ';',
  '\n',
  // line and paragraph separators: JavaScript's line terminators, not N-Quads' or JSON's
  '\u2028',
  '\u2029',
];

/** How many distinct remote contexts a context-bomb mutant names (the crawl allows 8 per document). */
export const BOMB_CONTEXTS = 40;

/**
 * One mutant of `body`: byte flips, cut-offs, spliced syntax characters, duplicated slices, and the
 * shapes of known attacks, so that their relatives are found: stray end tags (which once hid
 * nesting from the markup depth guard), many remote JSON-LD contexts in one document, and
 * U+2028/U+2029 spliced right after a quote or `<`, i.e. inside a literal or an IRI.
 */
export function mutate(body: Buffer, random: () => number): Buffer {
  const out = Buffer.from(body);
  const pick = (n: number) => Math.floor(random() * n);
  const splice = (at: number, text: string) =>
    Buffer.concat([out.subarray(0, at), Buffer.from(text), out.subarray(at)]);
  switch (pick(7)) {
    case 0:
      for (let i = 0; i < 1 + pick(8); i++) out[pick(out.length)] = pick(256);
      return out;
    case 1:
      return out.subarray(0, pick(out.length));
    case 2:
      return splice(pick(out.length), NASTY[pick(NASTY.length)]);
    case 3: {
      const from = pick(out.length);
      const slice = out.subarray(from, from + pick(200));
      return Buffer.concat([out, slice, slice, slice]);
    }
    case 4: {
      const unit = ['<div></b>', '</b>', '<span></p>', '<rdf:Description></x>', '<p><li></ul>'][pick(5)];
      return splice(pick(out.length), unit.repeat(1 + pick(20_000)));
    }
    case 5:
      return contextBomb(out, pick);
    default: {
      const quotes = [...out.keys()].filter((i) => out[i] === 0x22 || out[i] === 0x3c);
      const at = quotes.length > 0 ? quotes[pick(quotes.length)] + 1 : pick(out.length);
      return splice(at, pick(2) === 0 ? '\u2028' : '\u2029');
    }
  }
}

/**
 * The body with many remote JSON-LD contexts: a JSON body becomes an array of copies of itself,
 * each naming its own context; any other body gets `"@context"` members spliced in.
 */
function contextBomb(body: Buffer, pick: (n: number) => number): Buffer {
  const context = (i: number) => `http://c${i}.contexts.fuzz.example/ctx`;
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    const at = pick(body.length);
    const members = Array.from({ length: BOMB_CONTEXTS }, (_, i) => `"@context": "${context(i)}",`).join('');
    return Buffer.concat([body.subarray(0, at), Buffer.from(members), body.subarray(at)]);
  }
  const node = document !== null && typeof document === 'object' && !Array.isArray(document) ? document : {};
  const own = (node as { '@context'?: unknown })['@context'] ?? [];
  const nodes = Array.from({ length: BOMB_CONTEXTS }, (_, i) => ({
    ...node,
    '@context': [context(i), ...(Array.isArray(own) ? own : [own])],
  }));
  return Buffer.from(JSON.stringify(nodes));
}

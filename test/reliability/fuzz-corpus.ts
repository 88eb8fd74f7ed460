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
];

/** One mutant of `body`: byte flips, cut-offs, spliced syntax characters or duplicated slices. */
export function mutate(body: Buffer, random: () => number): Buffer {
  const out = Buffer.from(body);
  const pick = (n: number) => Math.floor(random() * n);
  switch (pick(4)) {
    case 0:
      for (let i = 0; i < 1 + pick(8); i++) out[pick(out.length)] = pick(256);
      return out;
    case 1:
      return out.subarray(0, pick(out.length));
    case 2: {
      const at = pick(out.length);
      return Buffer.concat([out.subarray(0, at), Buffer.from(NASTY[pick(NASTY.length)]), out.subarray(at)]);
    }
    default: {
      const from = pick(out.length);
      const slice = out.subarray(from, from + pick(200));
      return Buffer.concat([out, slice, slice, slice]);
    }
  }
}

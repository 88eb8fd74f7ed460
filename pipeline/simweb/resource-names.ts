/**
 * Names of resources (the last path segment of their URIs, and their labels). About one in
 * twenty-five is non-ASCII, as on the real Web (DBpedia's `São_Paulo`, `Zürich`, `東京`).
 */
import { hash32, randomStream } from './random.ts';

const STEMS: readonly string[] = [
  'Berlin',
  'Paris',
  'Galway',
  'Leipzig',
  'Tim',
  'Ada',
  'Linus',
  'Grace',
  'River',
  'Harbour',
  'Museum',
  'Library',
  'Protein',
  'Gene',
  'Enzyme',
  'Dataset',
  'Concept',
  'Album',
  'Novel',
  'Bridge',
  'Station',
  'Village',
  'Mountain',
  'Lake',
  'Festival',
  'Treaty',
  'Composer',
  'Painter',
  'Journal',
  'Article',
];
const NON_ASCII_STEMS: readonly string[] = [
  'São_Paulo',
  'Zürich',
  'Köln',
  'Malmö',
  'Ελλάδα',
  '東京',
  'Москва',
  'Kraków',
  'Dvořák',
  'Œuvre',
  'Ñandú',
  'Québec',
  'İstanbul',
  'Þingvellir',
  'القاهرة',
];

/** The name of local resource `local` of a PLD; unique within the PLD because it ends in `_local`. */
export function resourceName(seed: number, pld: number, local: number): string {
  const h = hash32(seed, pld, local, 0x4e41);
  const stem =
    h % 25 === 0 ? NON_ASCII_STEMS[(h >>> 8) % NON_ASCII_STEMS.length] : STEMS[(h >>> 8) % STEMS.length];
  return `${stem}_${local}`;
}

/** A human label for a resource name, in the language of `lang` (for literals with language tags). */
export function labelFor(name: string, lang: string): string {
  const base = name.replace(/_\d+$/, '').replaceAll('_', ' ');
  switch (lang) {
    case 'de':
      return `${base} (Ort)`;
    case 'fr':
      return `${base} (lieu)`;
    case 'el':
      return `${base} (τόπος)`;
    case 'ja':
      return `${base}（場所）`;
    default:
      return base;
  }
}

/** A sentence of description text, varying with `version` so that real changes alter literals. */
export function descriptionFor(seed: number, doc: number, version: number): string {
  const r = randomStream(seed, doc, version, 0x7e47);
  const words = ['observed', 'linked', 'described', 'curated', 'revised', 'catalogued', 'café', 'naïve'];
  let text = 'Resource';
  const n = 4 + r.int(6);
  for (let i = 0; i < n; i++) text += ` ${r.pick(words)}`;
  return `${text} (revision ${version}).`;
}

/**
 * Real-looking host names for the simulated Web, so that pay-level-domain logic (Public Suffix
 * List, multi-label suffixes such as ac.uk or com.au) runs on the same shapes as on the real Web.
 */
import { randomStream } from './random.ts';

/** Big Linked Data publishers, largest first, with the host their data lives on. */
export const FAMOUS_DATA_HOSTS: readonly string[] = [
  'dbpedia.org',
  'www.wikidata.org',
  'sws.geonames.org',
  'data.bnf.fr',
  'id.loc.gov',
  'bio2rdf.org',
  'data.europa.eu',
  'lod.openlinksw.com',
  'data.nytimes.com',
  'linkedgeodata.org',
  'data.example.ac.uk',
  'yago-knowledge.org',
  'data.ordnancesurvey.co.uk',
  'id.dbpedia.de',
  'data.gov.uk',
  'www.europeana.eu',
];

/** Sub-domain labels of PLDs that publish on many hosts (DBpedia's language editions, bio2rdf's datasets). */
export const SUBDOMAIN_LABELS: readonly string[] = [
  'de',
  'fr',
  'ja',
  'es',
  'it',
  'nl',
  'pl',
  'pt',
  'ru',
  'el',
  'ko',
  'cs',
  'eu',
  'live',
  'drugbank',
  'pubmed',
  'uniprot',
  'kegg',
  'omim',
  'mesh',
  'chebi',
  'go',
  'hgnc',
  'taxonomy',
  'people',
  'places',
  'events',
  'library',
  'archive',
  'museum',
];

const SUFFIXES: readonly string[] = [
  'org',
  'org',
  'org',
  'com',
  'com',
  'net',
  'de',
  'fr',
  'ac.uk',
  'ac.uk',
  'co.uk',
  'gov.uk',
  'edu',
  'nl',
  'it',
  'es',
  'eu',
  'info',
  'jp',
  'com.au',
  'ac.jp',
  'gr',
  'com.br',
  'io',
  'ch',
  'at',
  'se',
  'fi',
  'pl',
  'cz',
];
const HOST_PREFIXES: readonly string[] = ['', '', 'data.', 'www.', 'id.', 'lod.', 'linkeddata.', 'rdf.'];
const SYLLABLES: readonly string[] = [
  'al',
  'ar',
  'ba',
  'be',
  'ca',
  'co',
  'da',
  'de',
  'el',
  'en',
  'fa',
  'go',
  'ha',
  'in',
  'ka',
  'ko',
  'la',
  'li',
  'ma',
  'mo',
  'na',
  'no',
  'or',
  'pa',
  'pe',
  'ra',
  'ri',
  'sa',
  'se',
  'ta',
  'to',
  'ur',
  'va',
  'vi',
  'ze',
  'lod',
  'sem',
  'bib',
  'geo',
  'bio',
  'mus',
  'net',
  'gen',
  'lex',
];

/** A synthetic host (with its registrable domain inside) for data PLD number `index`, unique within `taken`. */
export function syntheticHost(seed: number, index: number, taken: Set<string>): string {
  const r = randomStream(seed, index, 0x4057);
  for (;;) {
    const n = 2 + r.int(3);
    let label = '';
    for (let i = 0; i < n; i++) label += r.pick(SYLLABLES);
    if (r.next() < 0.15) label += `-${r.pick(['data', 'lod', 'lab', 'net', 'project', 'archive'])}`;
    const domain = `${label}.${r.pick(SUFFIXES)}`;
    if (taken.has(domain)) continue;
    taken.add(domain);
    return r.pick(HOST_PREFIXES) + domain;
  }
}

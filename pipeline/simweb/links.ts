/**
 * The link structure: which documents a document points to. Links stay inside the PLD, cross to
 * other PLDs (mostly to big ones: preferential attachment), and the core documents point to the
 * home documents of most PLDs, so that a 2-hop crawl from the core reaches most of the Web.
 */
import { docAddress } from './documents.ts';
import { randomStream, unit } from './random.ts';
import { VOCABULARIES, vocabularyDocUrl } from './vocabularies.ts';
import { firstDataPld, type GeneratedWeb, pldBySize } from './web-shape.ts';

/** Share of PLDs whose home document a core document links to (the rest are reached further out). */
const HOME_LINK_SHARE = 0.75;

interface CoreIndex {
  readonly docs: readonly number[];
  /** Core document id -> documents (PLD homes) it links to. */
  readonly homes: ReadonlyMap<number, readonly number[]>;
}

const coreCache = new WeakMap<GeneratedWeb, CoreIndex>();

function coreIndex(web: GeneratedWeb): CoreIndex {
  const cached = coreCache.get(web);
  if (cached) return cached;
  const first = firstDataPld(web);
  const dataPlds = web.plds.slice(first);
  const wanted = Math.min(250, Math.max(20, Math.round(0.4 * dataPlds.length)));
  const top = Math.max(1, Math.ceil(wanted / 3));
  const docs: number[] = [];
  // example resources of the big datasets: the first documents of the largest PLDs
  for (let j = 0; j < 3 && docs.length < wanted; j++) {
    for (const p of dataPlds.slice(0, top))
      if (p.docCount > j && docs.length < wanted) docs.push(p.docStart + j);
  }
  for (const p of dataPlds.slice(top)) if (docs.length < wanted) docs.push(p.docStart);
  const homes = new Map<number, number[]>();
  const isCore = new Set(docs);
  for (const p of dataPlds) {
    if (isCore.has(p.docStart) || unit(web.key, p.index, 0x40e) >= HOME_LINK_SHARE) continue;
    const from = docs[Math.floor(unit(web.key, p.index, 0x40f) * docs.length)];
    homes.set(from, [...(homes.get(from) ?? []), p.docStart]);
  }
  const index = { docs, homes };
  coreCache.set(web, index);
  return index;
}

/** Ids of the core documents (example resources of the largest datasets). */
export function coreDocs(web: GeneratedWeb): readonly number[] {
  return coreIndex(web).docs;
}

/**
 * The core seed list, like a real one: the most-linked vocabularies (their documents and a few
 * term IRIs) and example resources of the big datasets.
 */
export function coreSeeds(web: GeneratedWeb): string[] {
  const seeds: string[] = [];
  for (const v of VOCABULARIES) {
    seeds.push(vocabularyDocUrl(v));
    if (v.classes[0]) seeds.push(v.namespace + v.classes[0]);
  }
  for (const d of coreIndex(web).docs) seeds.push(docAddress(web, d).uri);
  return [...new Set(seeds)];
}

/** Documents that document `doc` links to, whatever its version (deduplicated, never itself). */
export function staticLinks(web: GeneratedWeb, doc: number): number[] {
  const a = docAddress(web, doc);
  if (a.vocabulary) return [];
  const r = randomStream(web.key, doc, 0x11c);
  const out = new Set<number>(coreIndex(web).homes.get(doc) ?? []);
  const size = a.pld.docCount;
  if (size > 1) {
    const n = 1 + r.int(3);
    for (let i = 0; i < n; i++) out.add(a.pld.docStart + Math.floor(size * r.next() ** 2));
  }
  const first = firstDataPld(web);
  const n = 1 + r.int(3);
  for (let i = 0; i < n; i++) {
    const p = r.next() < 0.7 ? pldBySize(web, r.next()) : web.plds[first + r.int(web.plds.length - first)];
    out.add(p.docStart + Math.floor(p.docCount * r.next() ** 3));
  }
  out.delete(doc);
  return [...out];
}

/** Documents linked only in version `real` of `doc` (links come and go with real changes). */
export function versionLinks(web: GeneratedWeb, doc: number, real: number): number[] {
  const r = randomStream(web.key, doc, real, 0x11d);
  const n = real % 3;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = pldBySize(web, r.next());
    out.push(p.docStart + Math.floor(p.docCount * r.next() ** 2));
  }
  return out;
}

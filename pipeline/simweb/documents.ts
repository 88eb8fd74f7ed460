/**
 * Where each document lives and what it looks like from outside: its URI, the URL that serves
 * its RDF, the IRI of the thing it describes, and its syntax. All computed from (seed, id).
 */
import type { RdfFormat } from '../core/index.ts';
import { FORMAT_SHARES, FORMATS } from './formats.ts';
import { pickWeighted, unit } from './random.ts';
import { resourceName } from './resource-names.ts';
import { type Vocabulary, vocabularyDocUrl } from './vocabularies.ts';
import { type GeneratedWeb, pldOfDoc, type SimPld } from './web-shape.ts';

export interface DocAddress {
  readonly doc: number;
  readonly pld: SimPld;
  readonly local: number;
  readonly host: string;
  readonly name: string;
  /** The IRI other documents link to (may carry a fragment, or answer 303). */
  readonly uri: string;
  /** The URL that answers with the RDF. */
  readonly docUrl: string;
  /** The IRI of the main subject of the document. */
  readonly entity: string;
  /** Set for vocabulary documents. */
  readonly vocabulary: Vocabulary | null;
}

/** The address of document `doc`. */
export function docAddress(web: GeneratedWeb, doc: number): DocAddress {
  const pld = pldOfDoc(web, doc);
  const local = doc - pld.docStart;
  if (pld.kind === 'vocabulary') {
    const v = pld.vocabularies[local];
    const url = vocabularyDocUrl(v);
    const entity = v.namespace.replace(/#$/, '');
    return { doc, pld, local, host: v.host, name: v.prefix, uri: url, docUrl: url, entity, vocabulary: v };
  }
  const name = resourceName(web.key, pld.index, local);
  const host =
    local === 0 ? pld.hosts[0] : pld.hosts[Math.floor(unit(web.key, doc, 0x405) * pld.hosts.length)];
  const base = `http://${host}`;
  switch (pld.style) {
    case 'see-other': {
      const uri = `${base}/resource/${name}`;
      return {
        doc,
        pld,
        local,
        host,
        name,
        uri,
        docUrl: `${base}/data/${name}`,
        entity: uri,
        vocabulary: null,
      };
    }
    case 'hash': {
      const docUrl = `${base}/${pld.section}/${name}`;
      return {
        doc,
        pld,
        local,
        host,
        name,
        uri: `${docUrl}#this`,
        docUrl,
        entity: `${docUrl}#this`,
        vocabulary: null,
      };
    }
    default: {
      const uri = `${base}/${pld.section}/${name}`;
      return { doc, pld, local, host, name, uri, docUrl: uri, entity: uri, vocabulary: null };
    }
  }
}

/** The syntax a document is published in: mostly its PLD's, sometimes another. */
export function docFormat(web: GeneratedWeb, address: DocAddress): RdfFormat {
  if (address.vocabulary) return address.vocabulary.format;
  if (unit(web.key, address.doc, 0xf0) < 0.85) return address.pld.format;
  return FORMATS[pickWeighted(FORMAT_SHARES, unit(web.key, address.doc, 0xf1))].format;
}

/** What a request path on a known host designates. */
export interface PathMatch {
  readonly address: DocAddress;
  /** `resource`: a URI that answers 303 to the document; `document`: the RDF itself. */
  readonly kind: 'resource' | 'document';
}

function safeDecode(path: string): string | null {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
}

/** The document a request for `host` + `path` designates, or null (a 404). */
export function matchPath(web: GeneratedWeb, host: string, rawPath: string): PathMatch | null {
  const pld = web.hostIndex.get(host);
  const path = safeDecode(rawPath);
  if (!pld || path === null) return null;
  if (pld.kind === 'vocabulary') {
    const local = pld.vocabularies.findIndex((v) => v.docPath === path && v.host === host);
    return local < 0 ? null : { address: docAddress(web, pld.docStart + local), kind: 'document' };
  }
  const m = /_(\d+)$/.exec(path);
  if (!m) return null;
  const local = Number(m[1]);
  if (local >= pld.docCount) return null;
  const address = docAddress(web, pld.docStart + local);
  if (address.host !== host) return null;
  const url = `http://${host}${path}`;
  if (url === address.docUrl) return { address, kind: 'document' };
  if (pld.style === 'see-other' && url === address.uri) return { address, kind: 'resource' };
  return null;
}

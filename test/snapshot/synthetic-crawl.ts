/**
 * Deterministic synthetic crawls of any size, for the kill -9 test and the publish benchmark:
 * `documents` documents of `perDocument` statements each (or heavyTailedSize's mix), a mix of IRIs, literals (some with a
 * language) and blank nodes, spread over 50 PLDs, every 20th document an error and every 10th
 * behind a redirect.
 */
import type { CrawledDocument, Statement } from '../../pipeline/core/index.ts';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

function statementsFor(url: string, i: number, count: number): Statement[] {
  const out: Statement[] = [
    {
      subject: url,
      predicate: RDF_TYPE,
      object: `http://vocab.example/C${i % 7}`,
      objectKind: 'iri',
      datatype: null,
      lang: null,
    },
  ];
  for (let k = 1; k < count; k++) {
    const blank = `_:b${i.toString(16)}_${k % 3}`;
    switch (k % 4) {
      case 0:
        out.push({
          subject: url,
          predicate: `http://vocab.example/p${k % 13}`,
          object: `http://site${(i + k) % 50}.example/doc/${(i * 7 + k) % 100_000}`,
          objectKind: 'iri',
          datatype: null,
          lang: null,
        });
        break;
      case 1:
        out.push({
          subject: url,
          predicate: 'http://www.w3.org/2000/01/rdf-schema#label',
          object: `Document ${i} label ${k} ünïcödé`,
          objectKind: 'literal',
          datatype: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString',
          lang: 'en',
        });
        break;
      case 2:
        out.push({
          subject: url,
          predicate: `http://vocab.example/p${k % 13}`,
          object: blank,
          objectKind: 'bnode',
          datatype: null,
          lang: null,
        });
        break;
      default:
        out.push({
          subject: blank,
          predicate: `http://vocab.example/value`,
          object: String(i * k),
          objectKind: 'literal',
          datatype: XSD_STRING,
          lang: null,
        });
    }
  }
  return out;
}

/**
 * Statements of document `i` in a heavy-tailed mix like the Web of Data's: a Pareto tail (minimum
 * 20, shape 1.3) capped at 100,000. Over many documents: mean ~81, median ~34, 1 in 160 above 1,000,
 * so 200,000 documents hold ~16 million statements (a DyLDO-size week).
 */
export function heavyTailedSize(i: number): number {
  const u = ((i + 0.5) * 0.6180339887498949) % 1;
  return Math.min(100_000, Math.floor(20 * u ** (-1 / 1.3)));
}

/** The documents callback for publishSnapshot: a fresh deterministic iteration on every call. */
export function syntheticCrawl(
  documents: number,
  perDocument: number | ((i: number) => number),
  startMs: number,
): () => AsyncIterable<CrawledDocument> {
  const size = typeof perDocument === 'number' ? () => perDocument : perDocument;
  return async function* () {
    for (let i = 0; i < documents; i++) {
      const pld = `site${i % 50}.example`;
      const url = `http://${pld}/doc/${i}`;
      const failed = i % 20 === 19;
      const statements = failed ? [] : statementsFor(url, i, size(i));
      const redirected = i % 10 === 3;
      const finalUrl = redirected ? `https://www.${pld}/doc/${i}` : url;
      yield {
        record: {
          url,
          finalUrl,
          pld,
          segment: i % 2 === 0 ? 'kernel' : 'adaptive',
          round: i % 3,
          fetchedAt: startMs + i * 10,
          durationMs: 50 + (i % 100),
          status: failed ? 503 : 200,
          error: failed ? 'http_5xx' : null,
          errorMessage: failed ? 'Service Unavailable' : null,
          contentType: 'text/turtle',
          format: failed ? null : 'turtle',
          bytes: statements.length * 80,
          statements: statements.length,
          contentSha256: failed ? null : i.toString(16).padStart(64, '0'),
          graphHash: failed ? null : `g${i.toString(16)}`,
          etag: `"${i}"`,
          lastModified: null,
          headers: { 'content-type': 'text/turtle', server: 'synthetic' },
          redirects: redirected ? [{ from: url, to: finalUrl, status: 301, at: startMs + i * 10 }] : [],
        },
        statements: statements.map((s) => (s.subject === url ? { ...s, subject: finalUrl } : s)),
      };
    }
  };
}

/**
 * Reads documents whose parsing ends near a parse worker's heap limit, one after another, and prints
 * each verdict as a JSON line. Run as its own process by read-document.test.ts: before the young
 * generation was bounded, V8 aborted the whole process on some of these instead of ending the worker.
 */
import { readDocument, releaseParseWorkers } from '../../pipeline/rdf/index.ts';

const HEAP_MB = 96;

function body(format: string, n: number): Buffer {
  const lines: string[] = [];
  if (format === 'nt') {
    for (let i = 0; i < n; i++) lines.push(`<http://ex.org/r${i}> <http://ex.org/p> "value number ${i}" .\n`);
  } else if (format === 'ttl') {
    for (let i = 0; i < n; i++)
      lines.push(`<http://ex.org/r${i}> <http://ex.org/p> [ <http://ex.org/q> "v${i}" ] .\n`);
  } else {
    lines.push('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://ex.org/">');
    for (let i = 0; i < n; i++) {
      lines.push(
        `<rdf:Description rdf:about="http://ex.org/r${i}"><e:p>value number ${i}</e:p></rdf:Description>\n`,
      );
    }
    lines.push('</rdf:RDF>');
  }
  return Buffer.from(lines.join(''));
}

const TYPES: Record<string, string> = {
  nt: 'application/n-triples',
  ttl: 'text/turtle',
  rdfxml: 'application/rdf+xml',
};
// the sizes that aborted most often under 96 MiB with V8's default young generation
const CASES: [string, number][] = [
  ['nt', 200_000],
  ['ttl', 70_000],
  ['rdfxml', 250_000],
  ['nt', 300_000],
];

for (const [format, n] of CASES) {
  const read = await readDocument(
    { body: body(format, n), contentType: TYPES[format]!, documentUrl: `http://ex.org/${format}-${n}` },
    { cpuBudgetMs: 600_000, maxContexts: 8, heapMb: HEAP_MB },
  );
  console.log(JSON.stringify({ format, n, error: read.error, statements: read.statements.length }));
}
releaseParseWorkers();

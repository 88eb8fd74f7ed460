/**
 * Parse + write throughput of the rdf stage on one core: a large N-Triples file and the same
 * graph as Turtle (prefixes, `;` and `,` lists, blank nodes, language tags, datatypes) are parsed
 * with parseDocument and written as N-Quads to /dev/null, exactly as the crawler and the
 * publisher use them; serdi converts the same files to N-Quads in the same run for the ratio.
 * BENCH_STATEMENTS sets the size (default 1,000,000). Target: at least 300,000 statements/s.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNQuadsWriter, parseDocument } from '../../pipeline/rdf/index.ts';

const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 1_000_000);
const CHUNK = 10_000;
const EX = 'http://example.org/resource/';

/** The same graph in both syntaxes: five statements per resource. */
function generate(count: number): { ntriples: string; turtle: string } {
  const nt: string[] = [];
  const ttl: string[] = [
    '@prefix ex: <http://example.org/resource/> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n',
    '@prefix dct: <http://purl.org/dc/terms/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n',
  ];
  for (let i = 0; i < count / 5; i++) {
    const s = `<${EX}${i}>`;
    nt.push(
      `${s} <http://xmlns.com/foaf/0.1/name> "Name número ${i}"@en .\n`,
      `${s} <http://xmlns.com/foaf/0.1/knows> <${EX}${i + 1}> .\n`,
      `${s} <http://purl.org/dc/terms/title> "A \\"title\\" ${i}" .\n`,
      `${s} <http://example.org/resource/value> _:v${i} .\n`,
      `_:v${i} <http://example.org/resource/n> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`,
    );
    ttl.push(
      `ex:${i} foaf:name "Name número ${i}"@en ;\n  foaf:knows ex:${i + 1} ;\n`,
      `  dct:title "A \\"title\\" ${i}" ;\n  ex:value [ ex:n "${i}"^^xsd:integer ] .\n`,
    );
  }
  return { ntriples: nt.join(''), turtle: ttl.join('') };
}

async function ours(file: string, contentType: string): Promise<{ seconds: number; statements: number }> {
  const body = readFileSync(file);
  const start = performance.now();
  const result = await parseDocument({ body, contentType, documentUrl: 'http://example.org/dump' });
  const writer = createNQuadsWriter(createWriteStream('/dev/null'));
  for (let i = 0; i < result.statements.length; i += CHUNK) {
    await writer.writeDocument(result.statements.slice(i, i + CHUNK), 'http://example.org/dump');
  }
  await writer.end();
  if (result.error) throw new Error(`bench input did not parse: ${result.errorMessage}`);
  return { seconds: (performance.now() - start) / 1000, statements: result.statements.length };
}

function serdi(file: string, syntax: string): number {
  const devNull = openSync('/dev/null', 'w');
  const start = performance.now();
  const run = spawnSync('serdi', ['-i', syntax, '-o', 'nquads', file], {
    stdio: ['ignore', devNull, 'ignore'],
  });
  if (run.status !== 0) throw new Error(`serdi failed on ${file}`);
  return (performance.now() - start) / 1000;
}

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parse-bench-'));
  try {
    const { ntriples, turtle } = generate(STATEMENTS);
    const files = { ntriples: join(dir, 'data.nt'), turtle: join(dir, 'data.ttl') };
    writeFileSync(files.ntriples, ntriples);
    writeFileSync(files.turtle, turtle);
    // warm the JIT on a slice, so that the measurement is the steady state a crawl runs in
    await parseDocument({
      body: Buffer.from(ntriples.slice(0, 2_000_000).replace(/[^\n]*$/, '')),
      contentType: 'application/n-triples',
      documentUrl: 'http://example.org/w',
    });
    const rows: string[] = [];
    for (const [syntax, contentType] of [
      ['ntriples', 'application/n-triples'],
      ['turtle', 'text/turtle'],
    ] as const) {
      const run = await ours(files[syntax], contentType);
      const serdiSeconds = serdi(files[syntax], syntax);
      const rate = run.statements / run.seconds;
      const serdiRate = run.statements / serdiSeconds;
      const rss = process.resourceUsage().maxRSS / 1024;
      rows.push(
        `| ${syntax} | ${run.statements} | ${Math.round(rate).toLocaleString('en')} | ${Math.round(serdiRate).toLocaleString('en')} | ${(rate / serdiRate).toFixed(2)} | ${rss.toFixed(0)} MiB |`,
      );
    }
    process.stdout.write('parse + write N-Quads, one core (statements/s; ratio = ours / serdi)\n\n');
    process.stdout.write(
      '| syntax | statements | ours | serdi | ratio | peak RSS so far |\n| --- | --- | --- | --- | --- | --- |\n',
    );
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

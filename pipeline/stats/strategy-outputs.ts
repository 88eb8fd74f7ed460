/**
 * The re-visit strategies' figures and the crawl-time estimates, as `observatory evaluate --out` and
 * `observatory estimate --json` wrote them: `observatory report` includes these files as they are
 * (nothing is recomputed).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ObservatoryError } from '../core/index.ts';
import type { CrawlEstimate } from '../schedule/index.ts';
import type { DataTable, EvaluationView } from './portal-data.ts';

/** What `evaluate --out` writes, and which of its files `report` takes. */
const EVALUATION_RESULTS = 'results.json';
export const EVALUATION_FILES = ['tradeoff.svg', 'monthly.svg', 'results.csv', 'monthly.csv'] as const;

/** One `evaluate --out` folder: its name and the text of each of its files that `report` takes. */
export interface EvaluationOutput {
  readonly name: string;
  readonly files: ReadonlyArray<{ readonly name: (typeof EVALUATION_FILES)[number]; readonly text: string }>;
}

const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

function notFound(dir: string, what: string): ObservatoryError {
  return new ObservatoryError('invalid_input', `${dir}: ${what}`);
}

/**
 * The evaluations in `dir`: `dir` itself when `evaluate --out` wrote into it (it holds results.json),
 * else each of its subfolders that does (one per data set or seed, as docs/evaluation/ is laid out).
 */
export async function readEvaluations(dir: string): Promise<EvaluationOutput[]> {
  const folders = (await isFile(join(dir, EVALUATION_RESULTS)))
    ? [dir]
    : (await readdir(dir, { withFileTypes: true }).catch(() => []))
        .filter((e) => e.isDirectory())
        .map((e) => join(dir, e.name))
        .sort();
  const found: EvaluationOutput[] = [];
  for (const folder of folders) {
    if (!(await isFile(join(folder, EVALUATION_RESULTS)))) continue;
    const files = [];
    for (const name of EVALUATION_FILES)
      if (await isFile(join(folder, name)))
        files.push({ name, text: await readFile(join(folder, name), 'utf8') });
    found.push({ name: basename(folder), files });
  }
  if (found.length === 0)
    throw notFound(
      dir,
      `no ${EVALUATION_RESULTS} in it or its subfolders (write one with observatory evaluate --out)`,
    );
  return found;
}

const hours = (ms: number) => Number((ms / 3_600_000).toFixed(2));

/** The estimates in `dir` (every `*.json` file, as `estimate --json` prints one) as one table. */
export async function readEstimations(dir: string): Promise<DataTable> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
  if (names.length === 0)
    throw notFound(dir, 'no .json file in it (write one with observatory estimate --json > file.json)');
  const rows = [];
  for (const name of names) {
    let e: CrawlEstimate;
    try {
      e = JSON.parse(await readFile(join(dir, name), 'utf8'));
    } catch (error) {
      throw notFound(join(dir, name), `not JSON (${(error as Error).message})`);
    }
    if (typeof e?.p50Ms !== 'number' || typeof e.baseline?.makespanMs !== 'number')
      throw notFound(join(dir, name), 'not the output of observatory estimate --json');
    rows.push([
      name.replace(/\.json$/, ''),
      e.urls,
      e.plds,
      e.unknownPlds,
      hours(e.p10Ms),
      hours(e.p50Ms),
      hours(e.p90Ms),
      `${(100 * e.utilisation).toFixed(0)}%`,
      hours(e.baseline.makespanMs),
      e.baseline.threads,
    ]);
  }
  return {
    columns: [
      'estimate',
      'URIs',
      'PLDs',
      'PLDs without history',
      'P10 (h)',
      'P50 (h)',
      'P90 (h)',
      'slots busy',
      'baseline makespan (h)',
      'baseline threads',
    ],
    rows,
  };
}

/** The rows of an evaluation's results.csv for all documents (bucket `all`), as evaluate wrote them. */
function overallResults(csv: string): DataTable {
  // evaluate's CSV quotes nothing in these rows: strategy names and `all` hold no comma or quote
  const [header, ...lines] = csv
    .trimEnd()
    .split('\n')
    .map((line) => line.split(','));
  const bucket = header.indexOf('bucket');
  return {
    columns: header.filter((_, i) => i !== bucket),
    rows: lines
      .filter((cells) => cells[bucket] === 'all')
      .map((cells) =>
        cells.filter((_, i) => i !== bucket).map((c) => (Number.isNaN(Number(c)) ? c : Number(c))),
      ),
  };
}

/** The evaluations as the Reproductions page shows them: the SVG figures and the overall results. */
export function evaluationViews(evaluations: readonly EvaluationOutput[]): EvaluationView[] {
  return evaluations.map((e) => ({
    name: e.name,
    figures: e.files
      .filter((f) => f.name.endsWith('.svg'))
      .map((f) => ({
        file: f.name,
        dataUrl: `data:image/svg+xml;base64,${Buffer.from(f.text).toString('base64')}`,
      })),
    overall: overallResults(e.files.find((f) => f.name === 'results.csv')?.text ?? 'bucket\n'),
  }));
}

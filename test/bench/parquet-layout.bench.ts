/**
 * What a selective query reads of the published Parquet, and what other layouts would make it read
 * (issue #16: files tuned for reading over the network). One weekly snapshot of a simulated Web
 * with the DyLDO size profile is published; its quads.parquet and documents.parquet are then
 * rewritten with other compressions, row group sizes and sort orders. For each layout it reports
 * the file's size and the bytes a reader that prunes row groups by their statistics must fetch for
 * one document's quads (`WHERE graph = ...`) and for one PLD's documents (`WHERE pld = ...`): the
 * footer, plus the column chunks of the selected columns in every row group whose min/max admit the
 * value (from DuckDB's parquet_metadata; a real reader adds request overheads, never fewer bytes).
 */
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { openDuckDb, queryRows, sqlString } from '../../pipeline/snapshot/index.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';

const W0 = Date.UTC(2026, 0, 5);
const DOCS = 8000;

interface Layout {
  readonly name: string;
  readonly compression: string;
  readonly rowGroup: number | null;
  /** ORDER BY of the rewrite; null keeps the published order. */
  readonly order: string | null;
}

interface Probe {
  readonly table: 'quads' | 'documents';
  readonly column: string;
  readonly selected: readonly string[];
  readonly layouts: readonly Layout[];
}

const PROBES: readonly Probe[] = [
  {
    table: 'quads',
    column: 'graph',
    selected: ['subject', 'predicate', 'object'],
    layouts: [
      { name: 'published', compression: '', rowGroup: null, order: null },
      { name: 'snappy', compression: 'snappy', rowGroup: null, order: null },
      { name: 'zstd, 20k-row groups', compression: 'zstd', rowGroup: 20_480, order: null },
      { name: 'snappy, 20k-row groups', compression: 'snappy', rowGroup: 20_480, order: null },
    ],
  },
  {
    table: 'documents',
    column: 'pld',
    selected: ['url', 'status', 'statements'],
    layouts: [
      { name: 'published', compression: '', rowGroup: null, order: null },
      { name: 'zstd, 2k-row groups', compression: 'zstd', rowGroup: 2048, order: null },
      { name: 'zstd, by pld, url', compression: 'zstd', rowGroup: null, order: 'pld, url' },
      { name: 'zstd, by pld, url, 2k-row groups', compression: 'zstd', rowGroup: 2048, order: 'pld, url' },
    ],
  },
];

/** Bytes a statistics-pruning reader fetches from `file` for rows whose `column` equals `value`. */
async function selectiveBytes(
  c: Parameters<typeof queryRows>[0],
  file: string,
  probe: Probe,
  value: string,
): Promise<{ bytes: number; size: number; groups: number; read: number }> {
  const f = sqlString(file);
  const [[size, groups]] = await queryRows(
    c,
    `SELECT (SELECT size FROM read_blob(${f})), (SELECT num_row_groups FROM parquet_file_metadata(${f}))`,
  );
  const columns = [probe.column, ...probe.selected].map(sqlString).join(', ');
  const [[chunks, dataEnd, read]] = await queryRows(
    c,
    `WITH m AS (SELECT * FROM parquet_metadata(${f})),
       hit AS (SELECT row_group_id FROM m WHERE path_in_schema = ${sqlString(probe.column)}
         AND stats_min_value <= ${sqlString(value)} AND stats_max_value >= ${sqlString(value)})
     SELECT (SELECT sum(total_compressed_size) FROM m WHERE path_in_schema IN (${columns})
               AND row_group_id IN (FROM hit)),
            (SELECT max(coalesce(dictionary_page_offset, data_page_offset) + total_compressed_size) FROM m),
            (SELECT count(*) FROM hit)`,
  );
  // the footer (and magic) is what follows the last column chunk
  const footer = Number(size) - Number(dataEnd);
  return { bytes: Number(chunks) + footer, size: Number(size), groups: Number(groups), read: Number(read) };
}

/** Runs the benchmark and prints its table. */
export default async function (): Promise<void> {
  const sim = await startSimWeb({
    seed: 7,
    docs: DOCS,
    plds: 300,
    latencyScale: 0,
    faults: 0,
    docSizes: 'dyldo',
    now: W0,
  });
  const root = await mkdtemp(join(tmpdir(), 'parquet-layout-bench-'));
  const outcome = await simWeekly(sim, root, W0, rdfDocuments(sim, W0), { adaptiveRounds: 0 });
  sim.close();
  if (outcome.status !== 'published') throw new Error(`crawl ended ${outcome.status}`);
  const folder = outcome.snapshot.folder;
  const session = await openDuckDb();
  const c = session.connection;
  const rows: string[] = [];
  try {
    for (const probe of PROBES) {
      const published = join(folder, `${probe.table}.parquet`);
      // a value from the middle of the file: the median graph or PLD by row
      const [[value]] = await queryRows(
        c,
        `SELECT ${probe.column} FROM read_parquet(${sqlString(published)}) ORDER BY ${probe.column}
         LIMIT 1 OFFSET (SELECT count(*) / 2 FROM read_parquet(${sqlString(published)}))`,
      );
      const [[matching, total]] = await queryRows(
        c,
        `SELECT count(*) FILTER (${probe.column} = ${sqlString(String(value))}), count(*) FROM read_parquet(${sqlString(published)})`,
      );
      for (const layout of probe.layouts) {
        let file = published;
        if (layout.order !== null || layout.compression !== '' || layout.rowGroup !== null) {
          file = join(root, `${probe.table}-${layout.name.replace(/[^a-z0-9]+/g, '-')}.parquet`);
          const order = layout.order ? `ORDER BY ${layout.order}` : '';
          const group = layout.rowGroup ? `, ROW_GROUP_SIZE ${layout.rowGroup}` : '';
          await c.run(
            `COPY (FROM read_parquet(${sqlString(published)}) ${order}) TO ${sqlString(file)}
             (FORMAT parquet, COMPRESSION ${layout.compression}${group})`,
          );
        }
        const r = await selectiveBytes(c, file, probe, String(value));
        rows.push(
          `| ${probe.table} | ${layout.name} | ${Number(total).toLocaleString('en')} | ${(r.size / 2 ** 20).toFixed(2)} | ${r.groups} | ${probe.column} = one of ${Number(matching)} rows | ${r.read} | ${(r.bytes / 1024).toFixed(0)} | ${(r.bytes / r.size).toFixed(3)} |`,
        );
      }
    }
  } finally {
    session.close();
  }
  process.stdout.write(
    `one weekly snapshot of a ${DOCS}-document simulated Web (--doc-sizes dyldo, 300 PLDs), load ${loadavg()[0].toFixed(1)}\n` +
      '| table | layout | rows | file MiB | row groups | selective query | row groups read | KiB read | read / file |\n' +
      '| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n' +
      `${rows.join('\n')}\n`,
  );
}

// The SQL console's browser code (site/src/pages/query.astro, the only page with JavaScript):
// DuckDB-WASM, from the site's own copy of one bundle (pipeline/stats/duckdb-wasm-bundle.ts), reads
// the published Parquet over HTTP, asking for the byte ranges a query needs (footer, then the
// column chunks of the row groups its filters keep; docs/portal.md, "SQL console").
import * as duckdb from '@duckdb/duckdb-wasm';
import { DataType, type Table } from 'apache-arrow';
import { CONSOLE_TABLES } from '../../../pipeline/stats/console-examples.ts';

/** Rows shown in the page; the CSV download has them all. */
const SHOWN_ROWS = 1000;

interface CatalogueEntry {
  readonly name: string;
}

const root = document.getElementById('sql-console') as HTMLElement;
const sql = root.querySelector('textarea') as HTMLTextAreaElement;
const run = root.querySelector('#run') as HTMLButtonElement;
const status = root.querySelector('#status') as HTMLElement;
const output = root.querySelector('#result') as HTMLElement;
const absolute = (path: string) => new URL(path, document.baseURI).href;

/** SQL string literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The snapshots the catalogue lists, by name. */
async function snapshotNames(catalogueUrl: string): Promise<string[]> {
  const response = await fetch(catalogueUrl);
  if (!response.ok) throw new Error(`${catalogueUrl}: HTTP ${response.status}`);
  const { snapshots } = (await response.json()) as { snapshots: CatalogueEntry[] };
  return snapshots.map((s) => s.name);
}

/** The database, the catalogue's snapshots and the views defined so far. */
interface Session {
  readonly connection: duckdb.AsyncDuckDBConnection;
  readonly catalogueUrl: string;
  readonly snapshots: readonly string[];
  readonly views: Set<string>;
}

async function connect(): Promise<Session> {
  const { worker, wasm, catalogue } = root.dataset as Record<string, string>;
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(absolute(worker)));
  await db.instantiate(absolute(wasm));
  const catalogueUrl = absolute(catalogue);
  const snapshots = await snapshotNames(catalogueUrl);
  return { connection: await db.connect(), catalogueUrl, snapshots, views: new Set() };
}

/**
 * Defines `table` as a view over that table's Parquet in every snapshot of the catalogue, by URL
 * (HTTP cannot glob): the example queries' `read_parquet('snapshots/*\/<table>.parquet')` in
 * place. By column name, so that snapshots written before a column was added (data dictionary,
 * "since") give NULL there instead of failing the query.
 */
async function defineView(session: Session, table: string): Promise<void> {
  const url = (name: string) => new URL(`${name}/${table}.parquet`, session.catalogueUrl).href;
  const urls = session.snapshots.map((name) => literal(url(name)));
  await session.connection.query(
    `CREATE VIEW ${table} AS SELECT * FROM read_parquet([${urls.join(', ')}], union_by_name = true)`,
  );
  session.views.add(table);
}

/**
 * Runs the query, defining the views it needs as DuckDB asks for them: defining one reads the
 * footer of every file it covers, so a query that names no table of the catalogue reads none.
 */
async function runWithViews(session: Session, query: string): Promise<Table> {
  for (;;) {
    try {
      return await session.connection.query(query);
    } catch (error) {
      const missing = /Table with name (\w+) does not exist/.exec(String(error))?.[1]?.toLowerCase();
      const known = CONSOLE_TABLES.find((t) => t === missing);
      if (known === undefined || session.views.has(known)) throw error;
      await defineView(session, known);
    }
  }
}

let session: Promise<Session> | undefined;

/** `digits` (an integer, maybe negative) with `scale` of them after the decimal point. */
function decimal(digits: string, scale: number): string {
  if (scale === 0) return digits;
  const sign = digits.startsWith('-') ? '-' : '';
  const whole = digits.slice(sign.length).padStart(scale + 1, '0');
  return `${sign}${whole.slice(0, -scale)}.${whole.slice(-scale)}`;
}

/** A value as text: timestamps in ISO 8601 (UTC), nested values as JSON, null as NULL. */
function text(value: unknown, type: DataType): string {
  if (value === null || value === undefined) return 'NULL';
  if ((DataType.isTimestamp(type) || DataType.isDate(type)) && typeof value === 'number')
    return new Date(value).toISOString();
  // DuckDB sends HUGEINT (sum of BIGINT) and DECIMAL as Arrow decimals: digits, then the scale's point
  if (DataType.isDecimal(type)) return decimal(String(value), type.scale);
  if (typeof value === 'object' && !(value instanceof Uint8Array))
    return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v));
  return String(value);
}

function rowsOf(table: Table): string[][] {
  const columns = table.schema.fields.map((f, i) => ({ type: f.type, vector: table.getChildAt(i) }));
  const rows: string[][] = [];
  for (let r = 0; r < table.numRows; r++) rows.push(columns.map((c) => text(c.vector?.get(r), c.type)));
  return rows;
}

/** RFC 4180: every field quoted, quotes doubled, CRLF line ends. */
function csv(header: readonly string[], rows: readonly string[][]): string {
  const line = (cells: readonly string[]) => cells.map((c) => `"${c.replaceAll('"', '""')}"`).join(',');
  return [header, ...rows].map(line).join('\r\n') + '\r\n';
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, content = ''): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.textContent = content;
  return e;
}

let download: string | undefined;

function show(table: Table): void {
  const header = table.schema.fields.map((f) => f.name);
  const rows = rowsOf(table);
  if (download) URL.revokeObjectURL(download);
  download = URL.createObjectURL(new Blob([csv(header, rows)], { type: 'text/csv' }));
  const summary = element('p', `${rows.length.toLocaleString('en-US')} rows`);
  if (rows.length > SHOWN_ROWS) summary.textContent += `; the first ${SHOWN_ROWS.toLocaleString('en-US')} are shown`;
  const link = element('a', 'Download all rows as CSV');
  link.href = download;
  link.download = 'result.csv';
  summary.append(' · ', link);
  const tableElement = element('table');
  const head = tableElement.createTHead().insertRow();
  for (const name of header) head.append(Object.assign(element('th', name), { scope: 'col' }));
  const body = tableElement.createTBody();
  for (const row of rows.slice(0, SHOWN_ROWS)) {
    const tr = body.insertRow();
    for (const cell of row) tr.insertCell().textContent = cell;
  }
  const scroll = element('div');
  scroll.className = 'scroll';
  scroll.append(tableElement);
  output.replaceChildren(summary, scroll);
}

/** Runs the textarea's query; the console's `data-state` says when it is done (what the tests wait for). */
async function runQuery(): Promise<void> {
  root.dataset.state = 'running';
  run.disabled = true;
  status.textContent = session ? 'Running…' : 'Loading DuckDB and the catalogue…';
  output.replaceChildren();
  try {
    session ??= connect();
    const table = await runWithViews(await session, sql.value);
    show(table);
    status.textContent = '';
    root.dataset.state = 'done';
  } catch (error) {
    // a failed start (worker, module, catalogue) is retried by the next run; a failed query keeps the database
    if (session && !(await session.then(() => true, () => false))) session = undefined;
    const message = element('pre', error instanceof Error ? error.message : String(error));
    message.id = 'error';
    message.setAttribute('role', 'alert');
    output.replaceChildren(message);
    status.textContent = 'The query failed:';
    root.dataset.state = 'error';
  } finally {
    run.disabled = false;
  }
}

run.addEventListener('click', runQuery);
for (const example of root.querySelectorAll<HTMLButtonElement>('button[data-sql]'))
  example.addEventListener('click', () => {
    sql.value = example.dataset.sql ?? '';
    runQuery();
  });
root.hidden = false;
root.dataset.state = 'ready';

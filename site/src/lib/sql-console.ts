// The SQL console's browser code (site/src/pages/query.astro, the only page with JavaScript):
// DuckDB-WASM, from the site's own copy of one bundle (pipeline/portal/duckdb-wasm-bundle.ts), reads
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

// keepFailures runs in a classic worker, whose global this page's DOM types do not declare
declare const importScripts: (...urls: string[]) => void;

/**
 * Runs in the worker, before DuckDB's own script: when JavaScript code of DuckDB-WASM's file system
 * fails (a URL that answers 404, a glob over HTTP), DuckDB gets a WebAssembly exception and words
 * it `Invalid Error: [object WebAssembly.Exception]`, while the real message only goes to the
 * worker's console (`FAIL WITH: ...`). This keeps that message, with the status of each HTTP
 * request that failed since the query began, and puts it in the error the page receives.
 */
function keepFailures(duckdbWorker: string): void {
  let failure: string | null = null;
  let answers: string[] = [];
  addEventListener('message', () => {
    failure = null;
    answers = [];
  });
  const logError = console.error;
  console.error = (...args: unknown[]) => {
    const text = String(args[0]);
    // the first: the file system's catch reports the exception its own failure raised once more
    if (text.startsWith('FAIL WITH: ') && failure === null) failure = text.slice('FAIL WITH: '.length);
    logError(...args);
  };
  // DuckDB-WASM's HTTP reads are synchronous requests: the status is known once send returns
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  const requests = new WeakMap<XMLHttpRequest, string>();
  XMLHttpRequest.prototype.open = function (this: XMLHttpRequest, method: string, url: string | URL, ...rest: unknown[]) {
    requests.set(this, method);
    return (open as (...a: unknown[]) => void).call(this, method, url, ...rest);
  } as typeof open;
  XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    try {
      send.call(this, body);
    } finally {
      if (this.readyState === 4 && this.status >= 400)
        answers.push(`${requests.get(this)} ${this.status}${this.statusText ? ` ${this.statusText}` : ''}`);
      else if (this.readyState === 4 && this.status === 0) answers.push(`${requests.get(this)}: no answer`);
    }
  };
  const post = globalThis.postMessage.bind(globalThis) as (message: unknown, transfer?: Transferable[]) => void;
  globalThis.postMessage = ((message: { type?: string; data?: { message?: string } }, transfer?: Transferable[]) => {
    const opaque = message?.type === 'ERROR' && /\[object WebAssembly\.Exception\]/.test(message.data?.message ?? '');
    if (opaque && failure !== null) {
      const statuses = answers.length > 0 ? ` (${answers.join('; ')})` : '';
      message = { ...message, data: { ...message.data, message: `${failure}${statuses}` } };
    }
    post(message, transfer);
  }) as typeof globalThis.postMessage;
  importScripts(duckdbWorker);
}

/** DuckDB's worker behind keepFailures: a classic worker made of the two scripts. */
function duckdbWorker(url: string): Worker {
  const source = `(${keepFailures.toString()})(${JSON.stringify(url)});`;
  return new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
}

/** What a failed query's message says, with what to do where DuckDB's own words do not say it. */
function explained(message: string): string {
  // HTTP lists no folder: DuckDB asks for the URL with its `*` as it is
  const glob = /https?:\/\/\S*[*?[]\S*/.exec(message);
  if (glob)
    return `${message}\n\nA URL cannot be a glob: HTTP does not list folders, so ${glob[0]} names no file. Name the files one by one (read_parquet(['…', '…'])), or query the views documents, quads, redirects, changes and schedule, which cover every snapshot.`;
  return message;
}

async function connect(): Promise<Session> {
  const { worker, wasm, catalogue } = root.dataset as Record<string, string>;
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), duckdbWorker(absolute(worker)));
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

const two = (n: number) => String(n).padStart(2, '0');

/** An instant as DuckDB writes it: `2026-01-26 10:30:05`, a fraction of a second only when there is one. */
function dateTime(ms: number): string {
  const d = new Date(Math.floor(ms));
  const micros = Math.round((ms - Math.floor(ms / 1000) * 1000) * 1000);
  const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0').replace(/0+$/, '')}`;
  return `${d.toISOString().slice(0, 10)} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}${fraction}`;
}

/**
 * A value as DuckDB's own clients write it, so that what researchers copy from the console reads
 * like their DuckDB: DATE `2026-01-26`, TIMESTAMP `2026-01-26 10:30:05.5`, TIMESTAMPTZ with `+00`
 * (the console's DuckDB has no time zones: UTC); exact decimals; nested values as JSON; null as null.
 */
function text(value: unknown, type: DataType): string | null {
  if (value === null || value === undefined) return null;
  if (DataType.isDate(type) && value instanceof Date) return value.toISOString().slice(0, 10);
  if (DataType.isTimestamp(type) && typeof value === 'number')
    return `${dateTime(value)}${type.timezone ? '+00' : ''}`;
  // DuckDB sends HUGEINT (sum of BIGINT) and DECIMAL as Arrow decimals: digits, then the scale's point
  if (DataType.isDecimal(type)) return decimal(String(value), type.scale);
  if (typeof value === 'object' && !(value instanceof Uint8Array))
    return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v));
  return String(value);
}

function rowsOf(table: Table): (string | null)[][] {
  const columns = table.schema.fields.map((f, i) => ({ type: f.type, vector: table.getChildAt(i) }));
  const rows: (string | null)[][] = [];
  for (let r = 0; r < table.numRows; r++) rows.push(columns.map((c) => text(c.vector?.get(r), c.type)));
  return rows;
}

/**
 * RFC 4180, CRLF line ends: every value quoted (quotes doubled) and NULL an empty field, unquoted,
 * which every reader takes as missing (DuckDB with allow_quoted_nulls = false takes `""` as the empty string).
 */
function csv(header: readonly string[], rows: readonly (string | null)[][]): string {
  const line = (cells: readonly (string | null)[]) =>
    cells.map((c) => (c === null ? '' : `"${c.replaceAll('"', '""')}"`)).join(',');
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
    for (const cell of row) {
      const td = tr.insertCell();
      td.textContent = cell ?? 'NULL';
      if (cell === null) td.className = 'null';
    }
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
    const message = element('pre', explained(error instanceof Error ? error.message : String(error)));
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

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SiteFile } from './site-sync.ts';

/**
 * The one DuckDB-WASM bundle the SQL console (site/src/pages/query.astro) loads, served from the
 * site itself: `eh` (WebAssembly exceptions, in every current browser) is the smallest of the
 * three; `coi` needs cross-origin isolation, which static hosts like GitHub Pages cannot set.
 * package.json pins @duckdb/duckdb-wasm at 1.28.0 (DuckDB 0.9.1), the last release that reads
 * Parquet without an extension: later ones download their `parquet` extension from
 * extensions.duckdb.org at run time, and the site loads nothing from elsewhere.
 */
export const DUCKDB_BUNDLE = {
  /** The site folder the files go into. */
  dir: 'duckdb',
  worker: 'duckdb-browser-eh.worker.js',
  wasm: 'duckdb-eh.wasm',
} as const;

/**
 * The bundle's files as files of the site (path in the site -> the package's file), linked from
 * node_modules at build time rather than committed; the package's exact version pins their bytes.
 */
export function duckdbBundleFiles(): Map<string, SiteFile> {
  const require = createRequire(import.meta.url);
  const from = (name: string) => require.resolve(`@duckdb/duckdb-wasm/dist/${name}`);
  // package.json is not among the package's exports: read it beside dist/
  const pkg = join(dirname(from(DUCKDB_BUNDLE.wasm)), '..', 'package.json');
  const { version } = JSON.parse(readFileSync(pkg, 'utf8')) as { version: string };
  return new Map(
    [DUCKDB_BUNDLE.worker, DUCKDB_BUNDLE.wasm].map((name) => [
      join(DUCKDB_BUNDLE.dir, name),
      { from: from(name), identity: `duckdb-wasm@${version}:${name}` },
    ]),
  );
}

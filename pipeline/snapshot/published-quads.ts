import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { BaseDirection, ObjectKind, Statement } from '../core/index.ts';
import { readManifest } from './manifest.ts';
import { parquetFileName, readTableSql, rowColumns } from './schema.ts';

/** quads.parquet's row columns (schema.ts), in their order. */
const QUAD_NAMES = rowColumns('quads').map((c) => c.name);

/**
 * Statements read back from a published quads.parquet: by change detection (the previous
 * observation's graph), by a 304 that carries them over, and by reparse. Every reader selects
 * QUAD_COLUMNS and turns a row into a Statement with toStatement, which finds each term by its
 * column's name.
 */
export const QUAD_COLUMNS = QUAD_NAMES.map((name) => `"${name}"`).join(', ');

/** Where each column of QUAD_COLUMNS is in a row. */
const AT = Object.fromEntries(QUAD_NAMES.map((name, i) => [name, i]));

/**
 * The quads table of a published folder as SQL, in the current schema's shape whatever the folder's
 * schema version (readTableSql: schema 1-3 have no direction or source_graph, read as null). Once
 * per folder: its manifest is read.
 */
export async function publishedQuadsSql(folder: string): Promise<string> {
  const manifest = await readManifest(folder);
  const file = join(folder, parquetFileName('quads'));
  return `(${readTableSql(file, 'quads', manifest.schemaVersion, manifest)})`;
}

/** The graph of a row of QUAD_COLUMNS. */
export function graphOf(row: readonly unknown[]): string {
  return row[AT.graph] as string;
}

/** A row of QUAD_COLUMNS as a Statement (direction and sourceGraph only where they are set). */
export function toStatement(row: unknown[]): Statement {
  const s: Statement = {
    subject: row[AT.subject] as string,
    predicate: row[AT.predicate] as string,
    object: row[AT.object] as string,
    objectKind: row[AT.object_kind] as ObjectKind,
    datatype: row[AT.datatype] as string | null,
    lang: row[AT.lang] as string | null,
  };
  const direction = row[AT.direction] as BaseDirection | null;
  const sourceGraph = row[AT.source_graph] as string | null;
  if (direction === null && sourceGraph === null) return s;
  const directional: Statement = direction === null ? s : { ...s, direction };
  return sourceGraph === null ? directional : { ...directional, sourceGraph };
}

/** Reads `sql` (rows of QUAD_COLUMNS) into the statements of each graph. */
export async function statementsByGraph(
  connection: DuckDBConnection,
  sql: string,
): Promise<Map<string, Statement[]>> {
  const byGraph = new Map<string, Statement[]>();
  const reader = await connection.runAndReadAll(sql);
  for (const row of reader.getRows()) {
    const graph = graphOf(row);
    const list = byGraph.get(graph);
    if (list) list.push(toStatement(row));
    else byGraph.set(graph, [toStatement(row)]);
  }
  return byGraph;
}

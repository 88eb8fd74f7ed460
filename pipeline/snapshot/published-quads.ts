import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { BaseDirection, ObjectKind, Statement } from '../core/index.ts';
import { readManifest } from './manifest.ts';
import { parquetFileName, readTableSql } from './schema.ts';

/**
 * Statements read back from a published quads.parquet: by change detection (the previous
 * observation's graph), by a 304 that carries them over, and by reparse. Every reader selects
 * QUAD_COLUMNS, in this order, and turns a row into a Statement with toStatement.
 */
export const QUAD_COLUMNS =
  'graph, subject, predicate, object, object_kind, datatype, lang, direction, source_graph';

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

/** A row of QUAD_COLUMNS as a Statement (direction and sourceGraph only where they are set). */
export function toStatement(row: unknown[]): Statement {
  const s: Statement = {
    subject: row[1] as string,
    predicate: row[2] as string,
    object: row[3] as string,
    objectKind: row[4] as ObjectKind,
    datatype: row[5] as string | null,
    lang: row[6] as string | null,
  };
  const direction = row[7] as BaseDirection | null;
  const sourceGraph = row[8] as string | null;
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
    const graph = row[0] as string;
    const list = byGraph.get(graph);
    if (list) list.push(toStatement(row));
    else byGraph.set(graph, [toStatement(row)]);
  }
  return byGraph;
}

import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { Statement } from '../core/index.ts';
import type { GraphDiff } from '../rdf/index.ts';
import { TABLES } from './schema.ts';

/** The columns change detection stages delta rows in: delta.parquet's, without the snapshot's own. */
const STAGED = TABLES.delta.filter((c) => !['snapshot', 'snapshot_start', 'kind'].includes(c.name));

/** Creates stage_delta, which diffs append to and delta.parquet is exported from. */
export async function createDeltaStage(connection: DuckDBConnection): Promise<DuckDBAppender> {
  await connection.run(`CREATE TABLE stage_delta (${STAGED.map((c) => `"${c.name}" ${c.type}`).join(', ')})`);
  return connection.createAppender('stage_delta');
}

/** Which observation a changed document's diff compares, as its delta rows name it. */
export interface DiffedDocument {
  readonly url: string;
  /** The graph of this observation (its final URL), which the added statements are in. */
  readonly graph: string;
  readonly previousSnapshot: string;
  /** The graph of the previous observation, which the removed statements were in. */
  readonly previousGraph: string;
}

/**
 * Appends a document's diff to stage_delta, one row per statement added or removed, as the diff
 * gives them: blank nodes with their canonical labels (docs/data-dictionary.md, delta.parquet).
 * Rows go to DuckDB as they are made, so no more than one batch of diffs is held in memory.
 */
export function appendDelta(appender: DuckDBAppender, document: DiffedDocument, diff: GraphDiff): void {
  const append = (op: 'added' | 'removed', graph: string, s: Statement) => {
    const row: Readonly<Record<string, string | null>> = {
      url: document.url,
      graph,
      previous_snapshot: document.previousSnapshot,
      op,
      subject: s.subject,
      predicate: s.predicate,
      object: s.object,
      object_kind: s.objectKind,
      datatype: s.datatype,
      lang: s.lang,
      direction: s.direction ?? null,
      source_graph: s.sourceGraph ?? null,
    };
    for (const { name } of STAGED) {
      const value = row[name];
      if (value === null) appender.appendNull();
      else appender.appendVarchar(value);
    }
    appender.endRow();
  };
  for (const s of diff.added) append('added', document.graph, s);
  for (const s of diff.removed) append('removed', document.previousGraph, s);
}

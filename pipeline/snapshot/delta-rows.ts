import type { DuckDBConnection } from '@duckdb/node-api';
import type { Statement } from '../core/index.ts';
import type { GraphDiff } from '../rdf/index.ts';
import { rowColumns } from './schema.ts';

/** The columns change detection stages delta rows in: delta.parquet's, without the snapshot's own. */
const STAGED = rowColumns('delta');

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
 * Rows appended before they are flushed to stage_delta. DuckDB's appender otherwise holds 204,800
 * rows (its default) before it writes them: on a week where every document changed, that buffer
 * was ~200 MiB of the publish's peak RSS, one batch of diffs.
 */
const FLUSH_ROWS = 16_384;

/** stage_delta, which diffs append to and delta.parquet is exported from. */
export interface DeltaStage {
  /**
   * Appends a document's diff, one row per statement added or removed, as the diff gives them:
   * blank nodes with their canonical labels (docs/data-dictionary.md, delta.parquet).
   */
  append(document: DiffedDocument, diff: GraphDiff): void;
  close(): void;
}

/** Creates stage_delta; rows go to DuckDB as they are made, so no more than a batch of diffs is held in memory. */
export async function openDeltaStage(connection: DuckDBConnection): Promise<DeltaStage> {
  await connection.run(`CREATE TABLE stage_delta (${STAGED.map((c) => `"${c.name}" ${c.type}`).join(', ')})`);
  const appender = await connection.createAppender('stage_delta');
  let pending = 0;
  const row = (document: DiffedDocument, op: 'added' | 'removed', graph: string, s: Statement) => {
    const values: Readonly<Record<string, string | null>> = {
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
      const value = values[name];
      if (value === undefined) throw new Error(`delta rows do not produce column ${name}`);
      if (value === null) appender.appendNull();
      else appender.appendVarchar(value);
    }
    appender.endRow();
  };
  return {
    append(document, diff) {
      for (const s of diff.added) row(document, 'added', document.graph, s);
      for (const s of diff.removed) row(document, 'removed', document.previousGraph, s);
      pending += diff.added.length + diff.removed.length;
      if (pending >= FLUSH_ROWS) {
        appender.flushSync();
        pending = 0;
      }
    },
    close() {
      appender.closeSync();
    },
  };
}

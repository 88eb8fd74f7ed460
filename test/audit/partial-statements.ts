/**
 * The statements a crawl read from a body that breaks part way, from the snapshot's quads.parquet:
 * what the independent account takes from the crawl (observations.ts, PartialStatements).
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DataFactory, type Quad, type Quad_Object, type Quad_Subject } from 'n3';
import type { PartialStatements } from './observations.ts';

const { namedNode, blankNode, literal, quad } = DataFactory;

/** A reader of one snapshots folder's quads; close() when done. */
export async function partialStatementsReader(
  root: string,
): Promise<{ read: PartialStatements; close(): void }> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  const read: PartialStatements = async (snapshot, graph) => {
    const file = join(root, snapshot, 'quads.parquet').replaceAll("'", "''");
    const reader = await connection.runAndReadAll(
      `SELECT subject, predicate, object, object_kind, datatype, lang, source_graph FROM read_parquet('${file}')
        WHERE graph = $1`,
      [graph],
    );
    return reader.getRows().map(([s, p, o, kind, datatype, lang, source]): Quad => {
      const subject: Quad_Subject = String(s).startsWith('_:')
        ? blankNode(String(s).slice(2))
        : namedNode(String(s));
      const object: Quad_Object =
        kind === 'iri'
          ? namedNode(String(o))
          : kind === 'bnode'
            ? blankNode(String(o).slice(2))
            : literal(String(o), lang ? String(lang) : datatype ? namedNode(String(datatype)) : undefined);
      return quad(subject, namedNode(String(p)), object, source ? namedNode(String(source)) : undefined);
    });
  };
  return {
    read,
    close: () => {
      connection.closeSync();
      db.closeSync();
    },
  };
}

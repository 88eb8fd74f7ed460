import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ObjectKind, Statement } from '../core/index.ts';
import { serializeNQuads } from '../rdf/index.ts';
import { sqlString } from './duckdb-session.ts';
import { ioError } from './durable-fs.ts';

async function* lines(connection: DuckDBConnection, quadsFile: string): AsyncGenerator<string> {
  // read in file order, so data.nq.gz is sorted like quads.parquet: a publish session lets DuckDB
  // reorder unsorted results, which a parallel scan of the file would do
  await connection.run('SET preserve_insertion_order = true');
  const result = await connection.stream(
    `SELECT graph, subject, predicate, object, object_kind, datatype, lang FROM read_parquet(${sqlString(quadsFile)})`,
  );
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return;
    const [graph, subject, predicate, object, kind, datatype, lang] = chunk.getColumns() as unknown[][];
    let text = '';
    let run: Statement[] = [];
    for (let i = 0; i < chunk.rowCount; i++) {
      run.push({
        subject: subject[i] as string,
        predicate: predicate[i] as string,
        object: object[i] as string,
        objectKind: kind[i] as ObjectKind,
        datatype: datatype[i] as string | null,
        lang: lang[i] as string | null,
      });
      if (i + 1 === chunk.rowCount || graph[i + 1] !== graph[i]) {
        text += serializeNQuads(run, graph[i] as string);
        run = [];
      }
    }
    yield text;
  }
}

/** Writes data.nq.gz from the published quads.parquet: the same quads, in the same order. */
export async function exportNquads(
  connection: DuckDBConnection,
  quadsFile: string,
  target: string,
): Promise<void> {
  try {
    await pipeline(lines(connection, quadsFile), createGzip({ level: 6 }), createWriteStream(target));
  } catch (error) {
    throw ioError('write', target, error);
  }
}

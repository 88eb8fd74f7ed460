import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { IDX_FILE, openZipNum } from '../archive/index.ts';
import { sqlString } from './duckdb-session.ts';
import type { ManifestFile } from './manifest.ts';

/** The plain CDXJ index that folders of schema 3 to 5 publish beside their WARC files. */
export const PLAIN_CDXJ_FILE = 'index.cdxj';

/**
 * A file of CDXJ lines as a DuckDB relation of one column, `line`: no delimiter, quote or escape can
 * occur in it. Buffers of 1 MiB (a line is at most a few times MAX_URL_LENGTH): DuckDB's default
 * buffer, about 32 MiB a thread, does not fit reparse's lookup session (LOOKUP_MEMORY_LIMIT) once
 * the file is larger than that, as a paper-size week's index.cdxj of schema 3-5 is.
 */
export function cdxjLinesSql(file: string): string {
  return `read_csv(${sqlString(file)}, header = false, delim = '\\0', quote = '', escape = '', buffer_size = 1048576,
    columns = {'line': 'VARCHAR'})`;
}

/** DuckDB's memory for reparse's lookups of captures: a plain index.cdxj is scanned in it, at any size. */
export const LOOKUP_MEMORY_LIMIT = '64MB';

/** Where a capture's gzip member lies, as a CDXJ line names it. */
export interface CapturePlace {
  readonly filename: string;
  readonly offset: number;
  readonly length: number;
}

/** A published folder's index, asked by URL. */
export interface CaptureLookup {
  /** The file the answers come from, for messages. */
  readonly file: string;
  /** The URL's last capture in the archive (the greatest file name, then offset: the last retry's), or null. */
  last(url: string): Promise<CapturePlace | null>;
}

/**
 * Opens the capture index of a published folder by what its manifest lists: the ZipNum index
 * since schema 6 (a binary search of index.idx, then one block read), the plain index.cdxj before
 * (scanned by DuckDB through `query`, one lookup at a time).
 */
export async function openCaptureLookup(
  folder: string,
  manifest: { readonly files: readonly Pick<ManifestFile, 'name'>[] },
  query: <T>(run: (connection: DuckDBConnection) => Promise<T>) => Promise<T>,
): Promise<CaptureLookup> {
  if (manifest.files.some((f) => f.name === IDX_FILE)) {
    const index = await openZipNum(folder);
    return {
      file: join(folder, IDX_FILE),
      async last(url) {
        let last: CapturePlace | null = null;
        for (const c of await index.captures(url)) {
          const place = { filename: c.filename, offset: Number(c.offset), length: Number(c.length) };
          const later =
            last === null ||
            place.filename > last.filename ||
            (place.filename === last.filename && place.offset > last.offset);
          if (later) last = place;
        }
        return last;
      },
    };
  }
  const file = join(folder, PLAIN_CDXJ_FILE);
  return {
    file,
    last: (url) =>
      query(async (connection) => {
        const rows = (
          await connection.runAndReadAll(
            `SELECT j->>'filename', (j->>'offset')::BIGINT, (j->>'length')::BIGINT
            FROM (SELECT substr(line, strpos(line, ' {') + 1)::JSON AS j FROM ${cdxjLinesSql(file)})
            WHERE j->>'url' = ${sqlString(url)} ORDER BY 1 DESC, 2 DESC LIMIT 1`,
          )
        ).getRows();
        return rows.length === 0
          ? null
          : { filename: rows[0][0] as string, offset: Number(rows[0][1]), length: Number(rows[0][2]) };
      }),
  };
}

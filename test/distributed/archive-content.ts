/**
 * What a published snapshot's archive and re-visits hold, as sorted lines two runs can be compared
 * on: the records per URL (not their order, dates or IDs, which differ between any two crawls).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDuckDb, sqlString } from '../../pipeline/snapshot/index.ts';
import { readWithNodeWarc } from '../archive/warc-reader.ts';

/** One line per kind of WARC record but warcinfo: `URL type status xN` (status for responses; N records). */
export async function archiveRecords(folder: string): Promise<string[]> {
  const counts = new Map<string, number>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.warc.gz'))) {
    for (const record of await readWithNodeWarc(join(folder, file))) {
      const type = record.warcHeader['WARC-Type'];
      if (type === 'warcinfo') continue;
      const status = type === 'response' ? ` ${record.httpInfo?.statusCode}` : '';
      const line = `${record.warcHeader['WARC-Target-URI']} ${type}${status}`;
      counts.set(line, (counts.get(line) ?? 0) + 1);
    }
  }
  return [...counts].map(([line, n]) => `${line} x${n}`).sort();
}

/** One line per documents.parquet row: `url validation carried_from`. */
export async function revisitColumns(folder: string): Promise<string[]> {
  const db = await openDuckDb();
  try {
    const reader = await db.connection.runAndReadAll(
      `SELECT concat_ws(' ', url, coalesce(validation, '-'), coalesce(carried_from, '-')) AS l
       FROM read_parquet(${sqlString(join(folder, 'documents.parquet'))}) ORDER BY l`,
    );
    return reader.getRows().map((r) => String(r[0]));
  } finally {
    db.close();
  }
}

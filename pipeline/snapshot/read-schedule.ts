import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ScheduleEntry } from '../core/index.ts';
import { openDuckDb, sqlString } from './duckdb-session.ts';
import { parquetFileName } from './schema.ts';

/** The re-visit schedule a published snapshot left behind (empty when the folder has none). */
export async function readSchedule(folder: string): Promise<ScheduleEntry[]> {
  const file = join(folder, parquetFileName('schedule'));
  if (!existsSync(file)) return [];
  const db = await openDuckDb();
  try {
    const reader = await db.connection.runAndReadAll(
      `SELECT url, level, interval_ms, epoch_ms(next_due), strategy, state
       FROM read_parquet(${sqlString(file)}) ORDER BY url`,
    );
    return reader.getRows().map((r) => ({
      url: r[0] as string,
      level: Number(r[1]),
      intervalMs: Number(r[2]),
      nextDue: Number(r[3]),
      strategy: r[4] as string,
      state: r[5] as string,
    }));
  } finally {
    db.close();
  }
}

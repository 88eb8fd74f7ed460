import { join } from 'node:path';
import type { ScheduleEntry } from '../core/index.ts';
import { openDuckDb, sqlString } from './duckdb-session.ts';
import { parquetFileName } from './schema.ts';

/** The re-visit schedule a published snapshot left (its schedule.parquet), sorted by url. */
export async function readSchedule(folder: string): Promise<ScheduleEntry[]> {
  const session = await openDuckDb();
  try {
    const file = sqlString(join(folder, parquetFileName('schedule')));
    const rows = (
      await session.connection.runAndReadAll(
        `SELECT url, level, interval_ms, epoch_ms(next_due), strategy, state FROM read_parquet(${file}) ORDER BY url`,
      )
    ).getRows();
    return rows.map(([url, level, intervalMs, nextDue, strategy, state]) => ({
      url: url as string,
      level: Number(level),
      intervalMs: Number(intervalMs),
      nextDue: Number(nextDue),
      strategy: strategy as string,
      state: state as string,
    }));
  } finally {
    session.close();
  }
}

/**
 * When a snapshot's schedule next wants a re-visit, and how many of its documents were due before
 * `overdueBefore` (a tick missed them): one aggregate, not the schedule's rows.
 */
export async function scheduleDue(
  folder: string,
  overdueBefore: number,
): Promise<{ readonly nextDue: number | null; readonly overdue: number }> {
  const session = await openDuckDb();
  try {
    const file = sqlString(join(folder, parquetFileName('schedule')));
    const [[next, overdue]] = (
      await session.connection.runAndReadAll(
        `SELECT epoch_ms(min(next_due)), count(*) FILTER (epoch_ms(next_due) < ${Math.floor(overdueBefore)})
         FROM read_parquet(${file})`,
      )
    ).getRows();
    return { nextDue: next === null ? null : Number(next), overdue: Number(overdue) };
  } finally {
    session.close();
  }
}

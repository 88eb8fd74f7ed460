import type { ExchangeObserver, ExchangeRecord } from '../web/index.ts';

/** An exchange as stored in the `exchange` table: the record without its body, and the body. */
export interface StoredExchange {
  readonly id: number;
  readonly record: string;
  readonly body: Buffer | null;
}

export function storedExchange(record: ExchangeRecord): StoredExchange {
  const { response } = record;
  return {
    id: record.id,
    record: JSON.stringify({ ...record, response: response && { ...response, body: [] } }),
    // the chunks as one: the WARC record's bytes and digests do not depend on how they arrived
    body: response && Buffer.concat(response.body),
  };
}

/** The exchange a stored row holds, renumbered `id` (the coordinator's archive numbers its own). */
export function exchangeOfRow(row: { record: string; body: Buffer | null }, id: number): ExchangeRecord {
  const record = JSON.parse(row.record) as ExchangeRecord;
  const response = record.response && { ...record.response, body: row.body ? [row.body] : [] };
  return { ...record, id, response };
}

/**
 * A worker's exchanges not yet in the database. Each recorded outcome takes every exchange that
 * ended before it (its own, and whatever other fetches of the worker ended meanwhile: each goes
 * into the archive once, whichever row brings it), so the exchange that carried an outcome's final
 * response is always in the database by the time the outcome is.
 */
export class ExchangeBuffer implements ExchangeObserver {
  private pending: StoredExchange[] = [];

  exchanged(record: ExchangeRecord): void {
    this.pending.push(storedExchange(record));
  }

  /** Takes every exchange buffered so far. */
  take(): StoredExchange[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }

  /** Puts back exchanges whose transaction rolled back, ahead of those that ended since. */
  putBack(exchanges: readonly StoredExchange[]): void {
    this.pending = [...exchanges, ...this.pending];
  }
}

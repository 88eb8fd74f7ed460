import { setImmediate as nextTurn } from 'node:timers/promises';

/** Runs work one piece at a time, in the order given: the queries of one DuckDB connection. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/** An Exclusive of its own. */
export function exclusive(): Exclusive {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const next = last.then(work);
    last = next.catch(() => {});
    return next;
  };
}

/**
 * Asks for keys one by one and reads them in batches of at most `maxBatch`: the keys asked for
 * until a read's turn comes (at least the rest of the event loop's turn) go in that read, so the
 * number of reads follows how fast they answer, not how often keys are asked for. A read that
 * fails rejects every key of its batch.
 */
export function batchedReads<K, V>(
  read: (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>,
  inTurn: Exclusive,
  maxBatch: number,
): (key: K) => Promise<V | undefined> {
  let waiting: Array<{ key: K; resolve(v: V | undefined): void; reject(e: unknown): void }> = [];
  let queued = false;
  const schedule = () => {
    queued = true;
    void inTurn(async () => {
      await nextTurn();
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(maxBatch);
      if (waiting.length > 0) schedule();
      else queued = false;
      try {
        const found = await read(batch.map((w) => w.key));
        for (const w of batch) w.resolve(found.get(w.key));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    });
  };
  return (key) =>
    new Promise((resolve, reject) => {
      waiting.push({ key, resolve, reject });
      if (!queued) schedule();
    });
}

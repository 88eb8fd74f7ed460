/** How many per-snapshot file operations the portal data and its build keep pending at once. */
export const PARALLEL_FILES = 32;

/**
 * `fn` over `items` with at most `limit` calls pending, results in the items' order. Per-snapshot
 * file operations awaited one by one cost a thread-pool round trip each, seconds over ten years of
 * snapshots; all at once would open thousands of files.
 */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

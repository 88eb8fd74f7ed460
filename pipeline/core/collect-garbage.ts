import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null = null;

/**
 * A full garbage collection, between the phases of a long run (a crawl's end, before its publish
 * hands DuckDB its memory): V8 keeps the heap it grew during the crawl committed and collects
 * lazily, so the publish would start on top of hundreds of MiB of garbage. V8 exposes `gc` only
 * to contexts created after the flag is set, hence the new context.
 */
export function collectGarbage(): void {
  if (gc === null) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

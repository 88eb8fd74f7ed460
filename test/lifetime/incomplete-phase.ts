import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What a run in `.incomplete/` is doing, as seen from outside: its journal growing, or its publish folder there. */
export type RunPhase = 'crawling' | 'publishing';

/**
 * The phase of the run that wrote into `root/.incomplete/` since `sinceMs` (wall clock), or null
 * when none did: a journal written to since then is a crawl, a publish folder made since then a
 * publish. Runs left there earlier (an interrupted crawl waiting to be resumed) do not count.
 */
export function phaseSince(root: string, sinceMs: number): RunPhase | null {
  const base = join(root, '.incomplete');
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return null;
  }
  let phase: RunPhase | null = null;
  for (const name of names) {
    const mtime = (path: string) => {
      try {
        return statSync(path).mtimeMs;
      } catch {
        return 0;
      }
    };
    if (mtime(join(base, name, 'publish')) >= sinceMs) return 'publishing';
    if (mtime(join(base, name, 'crawl', 'journal.ndjson')) >= sinceMs) phase = 'crawling';
  }
  return phase;
}

/**
 * The runs of the kernel expansion among the published `expand` snapshots: one run is one
 * `observatory expand` (with its reruns), crawls 1 to K. The Reproductions figures show one run.
 */
import { join } from 'node:path';
import { ObservatoryError } from '../core/index.ts';
import { type ExpansionOfSnapshot, MANIFEST_FILE } from '../snapshot/index.ts';

/** One run of the expansion as published: its crawls in crawl order (some may be missing). */
export interface ExpansionRun<T> {
  /** The run's name, `YYYY-MM-DDTHHMMZ`: when its crawl 1 started (manifest `expansion.run`). */
  readonly name: string;
  /** Crawls the run was asked for (`--repeat`). */
  readonly of: number;
  readonly crawls: readonly T[];
}

/** A crawl's folder name without its `-expand-N`: a run's name when that crawl is its crawl 1. */
const minuteOf = (name: string) => name.replace(/-expand-\d+$/, '');

/**
 * The runs of `entries` (expand snapshots in the catalogue's order, oldest first), oldest first.
 * A manifest that records its run is grouped by it. One published before runs were recorded
 * belongs to the run of the crawls before it, unless its crawl number does not follow theirs (a
 * crawl 1, or a number not above the last): then it begins a run, named by its own start minute.
 */
export function expansionRuns<T extends { readonly name: string }>(
  entries: readonly T[],
  manifest: (entry: T) => { readonly expansion?: ExpansionOfSnapshot },
): ExpansionRun<T>[] {
  const runs = new Map<string, { of: number; crawls: { entry: T; crawl: number }[] }>();
  let unrecorded: { name: string; last: number } | null = null;
  for (const entry of entries) {
    const expansion = manifest(entry).expansion;
    if (!expansion)
      throw new ObservatoryError(
        'corrupt',
        `${join(entry.name, MANIFEST_FILE)}: a snapshot of kind expand without its expansion`,
      );
    let name = expansion.run;
    if (name === undefined) {
      if (unrecorded === null || expansion.crawl <= unrecorded.last)
        unrecorded = { name: minuteOf(entry.name), last: 0 };
      unrecorded.last = expansion.crawl;
      name = unrecorded.name;
    }
    const run = runs.get(name) ?? { of: expansion.of, crawls: [] };
    run.crawls.push({ entry, crawl: expansion.crawl });
    runs.set(name, run);
  }
  return [...runs]
    .map(([name, run]) => ({
      name,
      of: run.of,
      crawls: run.crawls.sort((a, b) => a.crawl - b.crawl).map((c) => c.entry),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

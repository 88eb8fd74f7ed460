/** Counts behind recall and precision, summed over documents. */
export interface Tally {
  documents: number;
  /** Real changes in the evaluated span. */
  changes: number;
  /** Observations that found at least one change since the previous observation. */
  captured: number;
  /** Observations made (downloads), the baseline download excluded. */
  downloads: number;
}

/** An empty tally. */
export function emptyTally(): Tally {
  return { documents: 0, changes: 0, captured: 0, downloads: 0 };
}

/** Adds b into a. */
export function addTally(a: Tally, b: Tally): void {
  a.documents += b.documents;
  a.changes += b.changes;
  a.captured += b.captured;
  a.downloads += b.downloads;
}

/** Captured changes / real changes (1 when there was nothing to capture). */
export function recall(t: Tally): number {
  return t.changes === 0 ? 1 : t.captured / t.changes;
}

/** Captured changes / downloads (0 without downloads). */
export function precision(t: Tally): number {
  return t.downloads === 0 ? 0 : t.captured / t.downloads;
}

/** One document's change history: when it really changed, within the time it was watched. */
export interface ChangeHistory {
  readonly id: string;
  /** Epoch ms when watching began (the baseline download) and ended. */
  readonly start: number;
  readonly end: number;
  /** Change times, ascending, within (start, end]. */
  readonly changes: Float64Array;
}

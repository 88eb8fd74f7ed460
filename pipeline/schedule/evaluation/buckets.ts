import { DAY, MONTH } from '../strategies/intervals.ts';

/** The dynamicity buckets of the rescheduling paper, by mean change interval (upper bounds inclusive). */
export const BUCKETS: readonly { readonly name: string; readonly upTo: number }[] = Object.freeze([
  { name: 'under 2 days', upTo: 2 * DAY },
  { name: '2-7 days', upTo: 7 * DAY },
  { name: '7-14 days', upTo: 14 * DAY },
  { name: '14 days-1 month', upTo: MONTH },
  { name: '1-2 months', upTo: 2 * MONTH },
  { name: '2-4 months', upTo: 4 * MONTH },
  { name: '4-6 months', upTo: 6 * MONTH },
  { name: 'over 6 months', upTo: Number.POSITIVE_INFINITY },
]);

/** Index into BUCKETS of a document with this mean change interval. */
export function bucketOf(meanChangeInterval: number): number {
  let i = 0;
  while (meanChangeInterval > BUCKETS[i].upTo) i++;
  return i;
}

/**
 * How well the observatory's re-visits caught the simulated Web's real changes, measured the way
 * the rescheduling paper measures strategies: an observation captures a change when at least one
 * real change happened since the previous observation (several count as one). Recall = captured /
 * real changes; precision = captured / downloads (observations after the first).
 */
export interface CaptureMeasures {
  readonly documents: number;
  readonly realChanges: number;
  readonly captured: number;
  readonly downloads: number;
  readonly recall: number;
  readonly precision: number;
}

/** Counts, over (start, end], the real changes and the observations that caught one. */
export function captureMeasures(
  observations: ReadonlyMap<string, readonly number[]>,
  realChanges: ReadonlyMap<string, readonly number[]>,
  span: { readonly start: number; readonly end: number },
): CaptureMeasures {
  let real = 0;
  let captured = 0;
  let downloads = 0;
  for (const [url, all] of observations) {
    const times = all.filter((t) => t >= span.start && t <= span.end).sort((a, b) => a - b);
    if (times.length === 0) continue;
    const changes = (realChanges.get(url) ?? []).filter((c) => c > times[0] && c <= span.end);
    real += changes.length;
    for (let i = 1; i < times.length; i++) {
      downloads++;
      if (changes.some((c) => c > times[i - 1] && c <= times[i])) captured++;
    }
  }
  return {
    documents: observations.size,
    realChanges: real,
    captured,
    downloads,
    recall: real === 0 ? 1 : captured / real,
    precision: downloads === 0 ? 0 : captured / downloads,
  };
}

export type { BaselineDomain, BaselineEstimate } from './estimate/baseline.ts';
export { BASELINE_DEFAULTS, baselineEstimate } from './estimate/baseline.ts';
export type { BoundingPld, CrawlEstimate, EstimateOptions, PlannedUrl } from './estimate/estimate.ts';
export { estimateCrawl } from './estimate/estimate.ts';
export { readHistoryStats } from './estimate/history-stats.ts';
export type { LevelFit, SlotPlan, SlotPlanOptions } from './estimate/plan.ts';
export { byUrgency, planSlot } from './estimate/plan.ts';
export type { FetchSample, HistoryStats, PldProfile, Politeness } from './estimate/profile.ts';
export { DEFAULT_PROFILE, effectiveDelay, emptyHistory, fetchTime } from './estimate/profile.ts';
export type { HistoryPools } from './estimate/sampler.ts';
export { pldDraws, poolHistory } from './estimate/sampler.ts';
export type { SimJob, SimResult, SimSettings } from './estimate/simulate.ts';
export { simulateCrawl } from './estimate/simulate.ts';
export { BUCKETS, bucketOf } from './evaluation/buckets.ts';
export type { BudgetPoint, ScaledFamily } from './evaluation/budget.ts';
export { defaultFamily, logGrid, matchBudget, sweepBudget } from './evaluation/budget.ts';
export { monthlyChart, tradeoffChart } from './evaluation/chart.ts';
export type { BucketVerdict, Comparison, ComparisonRow } from './evaluation/comparison.ts';
export { compareAtEqualDownloads, recallAt, SWEEP_SCALES } from './evaluation/comparison.ts';
export type { Evaluation, StrategyResult } from './evaluation/evaluate.ts';
export { documentBuckets, evaluate, evaluateStrategy } from './evaluation/evaluate.ts';
export { EVALUATION_MARKER, writeEvaluationFiles } from './evaluation/output-files.ts';
export type { MonthlyCounts, ReplaySettings } from './evaluation/replay.ts';
export { replay } from './evaluation/replay.ts';
export { comparisonTable, monthlyCsv, monthlyRows, resultsCsv, resultsTable } from './evaluation/report.ts';
export type { Tally } from './evaluation/tally.ts';
export { emptyTally, precision, recall } from './evaluation/tally.ts';
export { changeHistory, HISTORY_INSTANT, historyInstant } from './histories/change-history.ts';
export { historiesToJsonl, parseHistoriesJsonl } from './histories/jsonl.ts';
export type { HistoryFormat, LoadOptions } from './histories/load.ts';
export { detectFormat, HISTORY_FORMATS, loadHistories } from './histories/load.ts';
export type { PageRevisions } from './histories/mediawiki.ts';
export { addMediaWikiResponse, mediaWikiHistories } from './histories/mediawiki.ts';
export { seededRandom } from './histories/random.ts';
export { snapshotHistories } from './histories/snapshots.ts';
export type { SyntheticKind, SyntheticOptions } from './histories/synthetic.ts';
export { SYNTHETIC_BUCKETS, SYNTHETIC_KINDS, syntheticHistories } from './histories/synthetic.ts';
export type { ChangeHistory } from './histories/types.ts';
export type { LiveState, StoredHistory } from './live-state.ts';
export { HISTORY_LIMIT, readLiveState, writeLiveState } from './live-state.ts';
export type { BurstOptions, BurstState } from './strategies/burst-aware.ts';
export { BURST_DEFAULTS, burstStrategy } from './strategies/burst-aware.ts';
export { irregularRate, regularRate } from './strategies/change-rate.ts';
export type { StreakState } from './strategies/change-streak.ts';
export { dynLookBack, dynStrategy, fixStrategy } from './strategies/change-streak.ts';
export type { DyldoState } from './strategies/dyldo.ts';
export {
  DYLDO_DOWN_AFTER,
  dyldoStrategy,
  intervalForLevel,
  levelForInterval,
  MAX_LEVEL,
  SLOT_MS,
  SLOTS_PER_WEEK,
  slotsForLevel,
} from './strategies/dyldo.ts';
export { goldScaled, goldStrategy, weekStrategy } from './strategies/fixed.ts';
export {
  adjustByRate,
  clampInterval,
  DAY,
  HOUR,
  MONTH,
  PAPER_BOUNDS,
  PAPER_INITIAL_INTERVAL,
  WEEK,
  YEAR,
} from './strategies/intervals.ts';
export type { MarkovState } from './strategies/markov.ts';
export { stateOneStrategy, stateTwoStrategy } from './strategies/markov.ts';
export { historyOf, ObservationLog } from './strategies/observation-log.ts';
export type { RateOptions, RateState } from './strategies/rate-allocation.ts';
export { lookBackStart, RATE_DEFAULTS, rateStrategy } from './strategies/rate-allocation.ts';
export {
  defaultStrategy,
  PUBLISHED_STRATEGIES,
  SCALED_FAMILIES,
  STRATEGIES,
  strategyByName,
} from './strategies/registry.ts';
export type { Bounds, Decision, DecisionInput, History, Strategy, Truth } from './strategies/types.ts';
export { windowHalfStrategy, windowTenStrategy } from './strategies/window.ts';
export type { Observation, WeekPosition } from './tick-plan.ts';
export {
  dueUrls,
  LIVE_BOUNDS,
  liveStrategy,
  nextSchedule,
  slotInterval,
  weekPosition,
  weekStartOf,
} from './tick-plan.ts';

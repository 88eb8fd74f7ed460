export { fsyncPath, replaceFile, writeFileAtomic } from './atomic-write.ts';
export type { Clock, ManualClock } from './clock.ts';
export { clockStartingAt, manualClock, systemClock } from './clock.ts';
export { collectGarbage } from './collect-garbage.ts';
export type { ResolveRule } from './config.ts';
export {
  DEFAULT_USER_AGENT,
  findResolveRule,
  PRODUCT_TOKEN,
  parseResolveRule,
  pemCertificates,
  productToken,
  SOFTWARE_NAME,
  SOFTWARE_VERSION,
  userAgentFor,
} from './config.ts';
export type {
  CrawlConfig,
  CrawlFlag,
  CrawlOption,
  CrawlOptionKey,
  CrawlSetting,
  PolicyName,
  RoundEndRule,
} from './crawl-options.ts';
export {
  CRAWL_DEFAULTS,
  CRAWL_OPTION_ENTRIES,
  CRAWL_OPTIONS,
  crawlConfig,
  flagName,
  POLICY_NAMES,
  ROUND_END_RULES,
  recordedConfig,
  recordedSettings,
} from './crawl-options.ts';
export { parseDuration } from './duration.ts';
export type { ErrorAction, ErrorCode } from './errors.ts';
export {
  cutText,
  ERROR_CODES,
  ignoreFailure,
  invalidInput,
  isErrorCode,
  MESSAGE_LIMIT,
  ObservatoryError,
  QUOTE_LIMIT,
  quoteInput,
  TLS_ERROR_CODES,
  withCleanup,
} from './errors.ts';
export { inParallel, PARALLEL_FILES } from './in-parallel.ts';
export type { InstantRange } from './instant.ts';
export { exactInstant, INSTANT_FORMS, parseInstant } from './instant.ts';
export { failureCode, ioError, isStorageFailure, systemErrorCode, withSystemCode } from './io-error.ts';
export { MAX_URL_LENGTH, normaliseIri, stripFragment } from './iri.ts';
export type { Logger } from './log.ts';
export { createLogger, silentLogger } from './log.ts';
export { makeDirectory } from './make-directory.ts';
export type { BodyCost, MemoryLease } from './memory-budget.ts';
export { MemoryBudget } from './memory-budget.ts';
export type { OutputClaim, OwnedFolder } from './output-folder.ts';
export { claimOutputFolder, folderHolds, keepApart, prepareOwnedFolder } from './output-folder.ts';
export { acquirePidLock, lockHolder } from './pid-lock.ts';
export { NO_HOST_PLD, payLevelDomain, urlPld } from './pld.ts';
export type { Progress, ProgressOptions, ProgressRates, ProgressState } from './progress.ts';
export { createProgress, formatProgress, progressRates } from './progress.ts';
export { openRegularFile, openRegularFileSync, readRegularFile } from './regular-file.ts';
export { countAtMost } from './sorted.ts';
export { renderVegaLite } from './svg-chart.ts';
export { temporaryFor } from './temporary-files.ts';
export type {
  BaseDirection,
  CrawledDocument,
  CrawlSegment,
  DocumentRecord,
  FetchResult,
  ObjectKind,
  ParseResult,
  PreviousObservation,
  RdfFormat,
  RedirectHop,
  ScheduleEntry,
  SnapshotKind,
  Statement,
  Validation,
  Validators,
  WarcPointer,
} from './types.ts';
export { readUriList } from './uri-list.ts';

/** The crawl stage: frontier, breadth-first rounds, journal and resume. */

export { contextAlternate, contextText } from './context-loader.ts';
export type {
  CrawlFetcher,
  CrawlObserver,
  CrawlOptions,
  CrawlPlan,
  CrawlResult,
  DocumentPhase,
} from './crawl.ts';
export { DOCUMENT_PHASES, runCrawl, seedUrls } from './crawl.ts';
export type { CrawlStatsSnapshot, RoundStats } from './crawl-stats.ts';
export { CrawlStats, isRdfDocument } from './crawl-stats.ts';
export { processFetch } from './document.ts';
export { GAP_CAUSES, type GapCause, IdleGapRecorder, type PldTimeline } from './idle-gaps.ts';
export type { JournalDocuments, JournalLine, JournalScan } from './journal.ts';
export {
  CODE_KIND,
  JOURNAL_FILE,
  openJournal,
  PACKED_STATEMENT_FIELDS,
  readJournalDocuments,
  readJournalFile,
  scanJournal,
  writeJournalDocuments,
} from './journal.ts';
export { compareReady, type ReadyPld } from './policy.ts';
export { type FrontierPlace, redirectTakesOver } from './redirect-targets.ts';
export { type PldTrust, RevisitPolicy, type Revisits } from './revisit.ts';
export { documentLinks, endsRoundEarly, mayEndRoundEarly, type RoundView } from './rules.ts';
export type { ArchiveTarget, CrawlTools } from './tools.ts';
export { createCrawlTools } from './tools.ts';
export { UrlClaims } from './url-claims.ts';

/**
 * The stats stage: DuckDB queries over the published snapshots into the portal's data (portal.json,
 * VoID/DCAT, urls.txt, the history's running totals), and the papers' figures regenerated from the
 * snapshots (`report`). The portal stage builds and serves the site from that data.
 */
export {
  computePortalData,
  DATASET_JSONLD,
  DATASET_TURTLE,
  snapshotUrlList,
  URL_LIST,
} from './compute-portal-data.ts';
export { cachedDigest } from './digest-cache.ts';
export { domainSlug } from './domains.ts';
export {
  HISTORY_DIR,
  HISTORY_KEY_FILE,
  historyFiles,
  historyFilesOf,
  historyReads,
} from './history-state.ts';
export { LATEST_FILE, LATEST_NAME, latestWeekly } from './latest-alias.ts';
export type {
  DownloadableSnapshot,
  DownloadFile,
  PortalData,
  Reproduction,
  SnapshotView,
} from './portal-data.ts';
export { PORTAL_DATA_FILE, RENDERED_PAGES_FILE } from './portal-data.ts';
export type { RoundsChoice } from './reproductions.ts';
export { EXPANSION_KIND, roundCrawls } from './reproductions.ts';
export type { StatsOptions } from './stats-options.ts';
export { DEFAULT_BASE_URL, DEFAULT_DATA_DIR, DOWNLOADS_DIR, statsOptions } from './stats-options.ts';
export type { ReportOptions, WrittenReport } from './write-report.ts';
export { REPORT_INDEX, REPORT_MARKER, writeReport } from './write-report.ts';

/**
 * The stats stage and the portal build: DuckDB queries over the published snapshots into the
 * portal's data (portal.json, VoID/DCAT, urls.txt), the Astro build of site/, a small static
 * server for the built site, and the papers' figures regenerated from the snapshots (`report`).
 */
export type { BuildPortalOptions, BuiltPortal } from './build-portal.ts';
export { buildPortal, DEFAULT_DATA_DIR, SITE_DIR } from './build-portal.ts';
export {
  computePortalData,
  DATASET_JSONLD,
  DATASET_TURTLE,
  snapshotUrlList,
  URL_LIST,
} from './compute-portal-data.ts';
export { domainSlug } from './domains.ts';
export type { PortalData, Reproduction } from './portal-data.ts';
export { PORTAL_DATA_FILE } from './portal-data.ts';
export type { RoundsChoice } from './reproductions.ts';
export { EXPANSION_KIND } from './reproductions.ts';
export type { PortalServer, ServeOptions } from './serve-portal.ts';
export { servePortal } from './serve-portal.ts';
export type { StatsOptions } from './stats-options.ts';
export { DEFAULT_BASE_URL, statsOptions } from './stats-options.ts';
export type { ReportOptions, WrittenReport } from './write-report.ts';
export { REPORT_INDEX, REPORT_MARKER, writeReport } from './write-report.ts';

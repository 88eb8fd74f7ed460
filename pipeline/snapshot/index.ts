/**
 * The snapshot stage: publishes a finished crawl as a dated folder of N-Quads and Parquet with its
 * manifest, checksums, change detection and statistics; lists and verifies published folders.
 */
export type { CatalogueEntry } from './catalogue.ts';
export {
  CATALOGUE_FILE,
  formatCatalogue,
  listSnapshots,
  observationSnapshots,
  parseCatalogue,
} from './catalogue.ts';
export type { DeltaCount, DeltaFigures, PldDelta } from './delta-figures.ts';
export { EMPTY_DELTA } from './delta-figures.ts';
export type { DuckDbSession, DuckDbSessionOptions } from './duckdb-session.ts';
export {
  countBy,
  duckDbMemoryLimit,
  openDuckDb,
  queryRows,
  retrievedRdf,
  sqlString,
} from './duckdb-session.ts';
export { hashFile, linkOrCopy, writeFileAtomic } from './durable-fs.ts';
export type { ExpansionOfSnapshot, ManifestFile, ReparsedFrom, SnapshotManifest } from './manifest.ts';
export { CHECKSUMS_FILE, MANIFEST_FILE, parseChecksums, readManifest } from './manifest.ts';
export type { PreviousContent } from './previous-content.ts';
export { openPreviousContent } from './previous-content.ts';
export type { Publication, PublishedSnapshot, PublishOptions } from './publish.ts';
export { INCOMPLETE_DIR, openPublication, PHASE_WEIGHTS, PUBLISH_LOCK, publishSnapshot } from './publish.ts';
export { readSchedule, scheduleDue } from './read-schedule.ts';
export type { ReparseOptions } from './reparse.ts';
export { reparseSnapshot } from './reparse.ts';
export type { ColumnSpec, SchemaVersion, TableName } from './schema.ts';
export {
  hasTable,
  NQUADS_FILE,
  parquetFileName,
  readTableSql,
  SNAPSHOT_SCHEMA_VERSION,
  TABLE_NAMES,
  TABLES,
  tableColumns,
} from './schema.ts';
export type { PldFigures, SnapshotDigest } from './snapshot-digest.ts';
export { computeDigest, DIGEST_FILE, DIGEST_VERSION, publishedDigest } from './snapshot-digest.ts';
export {
  expansionRunName,
  isSnapshotName,
  SNAPSHOT_KINDS,
  snapshotKindOf,
  snapshotName,
} from './snapshot-name.ts';
export type { RankedCount, SnapshotStats } from './snapshot-stats.ts';
export type { TableLinks } from './table-links.ts';
export { linkSnapshotTables, TABLES_DIR, tableViewPath } from './table-links.ts';
export type { VerifyReport } from './verify.ts';
export { verifyFiles, verifySnapshot } from './verify.ts';
export type { WaczSummary } from './wacz.ts';
export { hasArchiveFiles, writeWacz, writeWaczFile } from './wacz.ts';

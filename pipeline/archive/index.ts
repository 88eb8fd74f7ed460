/**
 * The archive stage: every HTTP exchange of a crawl kept as WARC/1.1 (request and response records,
 * one gzip member each, rolling files) in the crawl's run folder, and the CDXJ index replay tools
 * read, compressed as a ZipNum cluster. Layout, records, pointers and crash behaviour: docs/archive.md.
 */
export { cdxjEntries, notWhole } from './cdxj.ts';
export type { CrawlArchive, CrawlArchiveOptions, EarlierObservation } from './crawl-archive.ts';
export { openCrawlArchive } from './crawl-archive.ts';
export type { FileMember, MembersEnd } from './gzip-members.ts';
export { gzipMembers } from './gzip-members.ts';
export type {
  ArchivedResponse,
  ReadResponseOptions,
  RevisitReferents,
  RevisitResolution,
} from './read-response.ts';
export { parseResponseRecord, readArchivedResponse } from './read-response.ts';
export { recordDigestProblem } from './record-digests.ts';
export type { RecordLimits } from './record-limits.ts';
export { HEAD_ALLOWANCE, recordLimits } from './record-limits.ts';
export type { Referent } from './revisit.ts';
export { IDENTICAL_PAYLOAD_DIGEST, responseBehind, SERVER_NOT_MODIFIED } from './revisit.ts';
export { warcFilePrefix, warcFilesIn } from './warc-files.ts';
export type { CdxjCapture, ZipNumIndex } from './zipnum.ts';
export { CDX_GZ_FILE, IDX_FILE, openZipNum, readIdx, writeZipNum, zipNumLines } from './zipnum.ts';

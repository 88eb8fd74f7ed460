/**
 * The archive stage: every HTTP exchange of a crawl kept as WARC/1.1 (request and response records,
 * one gzip member each, rolling files) in the crawl's run folder, and the CDXJ index replay tools
 * read. Layout, records, pointers and crash behaviour: docs/archive.md.
 */
export { cdxjEntries } from './cdxj.ts';
export type { CrawlArchive, CrawlArchiveOptions } from './crawl-archive.ts';
export { openCrawlArchive } from './crawl-archive.ts';
export type { ArchivedResponse } from './read-response.ts';
export { readArchivedResponse } from './read-response.ts';
export { warcFilesIn } from './warc-files.ts';

import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { CDXIndexer } from 'warcio';

/**
 * The lines of the CDXJ index of WARC files, as pywb and ReplayWeb.page read it: one line per
 * response record, `SURT timestamp {"url", "mime", "status", "digest", "length", "offset",
 * "filename"}`, in the files' order. The index is these lines sorted in byte order (as `LC_ALL=C
 * sort` gives), which the publisher does on disk so that a large crawl's index is never held in
 * memory. Webrecorder's own indexer reads the files, so the keys are canonicalised exactly as
 * their replay tools expect.
 */
export async function* cdxjEntries(dir: string, files: readonly string[]): AsyncGenerator<string> {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const sources = files.map((filename) => ({ filename, reader: createReadStream(join(dir, filename)) }));
  for await (const entry of indexer.iterIndex(sources)) yield indexer.serializeCDXJ(entry).trimEnd();
}

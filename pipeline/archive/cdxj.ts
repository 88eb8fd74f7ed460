import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CDXIndexer } from 'warcio';

/**
 * The CDXJ index of WARC files, as pywb and ReplayWeb.page read it: one line per response record,
 * `SURT timestamp {"url", "mime", "status", "digest", "length", "offset", "filename"}`, sorted
 * (byte order, as `LC_ALL=C sort` gives). Webrecorder's own indexer reads the files, so the keys
 * are canonicalised exactly as their replay tools expect.
 */
export async function cdxjLines(dir: string, files: readonly string[]): Promise<string[]> {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const lines: string[] = [];
  const sources = files.map((filename) => ({ filename, reader: createReadStream(join(dir, filename)) }));
  for await (const entry of indexer.iterIndex(sources)) lines.push(indexer.serializeCDXJ(entry).trimEnd());
  return lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Writes the sorted CDXJ index of `files` (in `dir`) to `target`. */
export async function writeCdxj(dir: string, files: readonly string[], target: string): Promise<void> {
  const lines = await cdxjLines(dir, files);
  await writeFile(target, lines.length > 0 ? `${lines.join('\n')}\n` : '');
}

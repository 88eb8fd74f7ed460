import { join } from 'node:path';
import { CDXIndexer } from 'warcio';
import { gzipMembers } from './gzip-members.ts';

/**
 * The lines of the CDXJ index of WARC files, as pywb and ReplayWeb.page read it: one line per
 * response record, `SURT timestamp {"url", "mime", "status", "digest", "length", "offset",
 * "filename"}`, in the files' order. The index is these lines sorted in byte order (as `LC_ALL=C
 * sort` gives), which the publisher does on disk so that a large crawl's index is never held in
 * memory. Webrecorder's own indexer reads the records, so the keys are canonicalised exactly as
 * their replay tools expect; it is handed them inflated, since it inflates in JavaScript (pako),
 * three times the CPU of Node's zlib plus its own parsing (measured on a 50,000-document week's
 * 127 MB archive: 9.1 s against 2.9 s). Every record is a gzip member of its own (docs/archive.md),
 * so the offset and length it reports in the inflated stream name a member, whose place in the file
 * the line then gives.
 */
export async function* cdxjEntries(dir: string, files: readonly string[]): AsyncGenerator<string> {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  for (const filename of files) {
    // the members handed to the indexer and not yet passed by its lines, in file order
    const members: Array<{
      readonly inflatedOffset: number;
      readonly inflatedLength: number;
      readonly offset: number;
      readonly length: number;
    }> = [];
    let inflatedOffset = 0;
    async function* inflated(): AsyncGenerator<Uint8Array> {
      for (const { offset, length, body } of gzipMembers(join(dir, filename))) {
        members.push({ inflatedOffset, inflatedLength: body.length, offset, length });
        inflatedOffset += body.length;
        yield body;
      }
    }
    for await (const entry of indexer.iterIndex([{ filename, reader: inflated() }])) {
      // the indexer names records in file order (a response may wait for the request after it); in
      // an inflated stream the length it gives leaves out the record's closing CRLFs
      while (members.length > 0 && members[0].inflatedOffset < Number(entry.offset)) members.shift();
      const member = members[0];
      if (member?.inflatedOffset !== Number(entry.offset) || Number(entry.length) > member.inflatedLength) {
        throw new Error(
          `${filename}: the record at ${entry.offset} of its inflated stream is not one gzip member`,
        );
      }
      entry.offset = member.offset;
      entry.length = member.length;
      yield indexer.serializeCDXJ(entry).trimEnd();
    }
  }
}

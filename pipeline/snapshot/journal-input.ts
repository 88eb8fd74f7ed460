import type { CrawledDocument } from '../core/index.ts';
import { type JournalDocuments, writeJournalDocuments } from '../crawl/index.ts';
import type { JournalInput } from './staging.ts';

/**
 * The journal file a publish loads: DuckDB reads journals, so there is one read path. A crawl's
 * documents (readJournalDocuments) are read in place; any other documents are first written in the
 * journal's format to `scratchFile`.
 */
export async function journalInput(
  documents: AsyncIterable<CrawledDocument>,
  scratchFile: string,
): Promise<JournalInput> {
  const journal = (documents as Partial<JournalDocuments>).journal;
  if (journal) return journal;
  await writeJournalDocuments(scratchFile, documents);
  return { file: scratchFile };
}

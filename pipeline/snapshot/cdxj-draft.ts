import { open } from 'node:fs/promises';
import { cdxjEntries, responseBehind, warcFilePrefix } from '../archive/index.ts';
import type { ArchiveSource } from './warc-output.ts';

/** What the draft found: its lines, and the snapshots whose records the archive's revisits refer to. */
export interface DraftedLines {
  readonly lines: number;
  readonly dependsOn: readonly string[];
}

/** The index's mark of a revisit record (cdxj-fields.ts). */
const REVISIT = '"mime":"warc/revisit"';

/**
 * The snapshot a revisit's line refers into: the prefix of the file its referent lies in, read from
 * the revisit's head; null for one that refers to nothing (a 304 whose previous record was unknown).
 */
async function referredSnapshot(dir: string, line: string): Promise<string | null> {
  const { filename, offset, length } = JSON.parse(line.slice(line.indexOf(' {') + 1));
  const referent = await responseBehind(dir, { filename, offset: Number(offset), length: Number(length) });
  return referent === null ? null : warcFilePrefix(referent.pointer.filename);
}

/**
 * Writes the CDXJ lines of an archive's files to `file`, unsorted, 1,024 lines a write; returns how
 * many, and the snapshots the manifest must name as dependencies (one small read per revisit).
 */
export async function writeCdxjLines(archive: ArchiveSource, file: string): Promise<DraftedLines> {
  const handle = await open(file, 'w');
  let lines = 0;
  let batch: string[] = [];
  const dependsOn = new Set<string>();
  try {
    const published = archive.limits !== undefined;
    for await (const line of cdxjEntries(archive.dir, archive.files, {
      notes: !published,
      limits: archive.limits,
    })) {
      batch.push(line);
      lines++;
      if (line.includes(REVISIT)) {
        const snapshot = await referredSnapshot(archive.dir, line);
        if (snapshot !== null) dependsOn.add(snapshot);
      }
      if (batch.length === 1024) {
        await handle.write(`${batch.join('\n')}\n`);
        batch = [];
      }
    }
    if (batch.length > 0) await handle.write(`${batch.join('\n')}\n`);
  } finally {
    await handle.close();
  }
  return { lines, dependsOn: [...dependsOn].sort() };
}

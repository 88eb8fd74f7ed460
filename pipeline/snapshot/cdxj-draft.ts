import { open } from 'node:fs/promises';
import { cdxjEntries } from '../archive/index.ts';
import type { ArchiveSource } from './warc-output.ts';

/** Writes the CDXJ lines of an archive's files to `file`, unsorted, 1,024 lines a write; returns how many. */
export async function writeCdxjLines(archive: ArchiveSource, file: string): Promise<number> {
  const handle = await open(file, 'w');
  let lines = 0;
  let batch: string[] = [];
  try {
    const published = archive.limits !== undefined;
    for await (const line of cdxjEntries(archive.dir, archive.files, {
      notes: !published,
      limits: archive.limits,
    })) {
      batch.push(line);
      lines++;
      if (batch.length === 1024) {
        await handle.write(`${batch.join('\n')}\n`);
        batch = [];
      }
    }
    if (batch.length > 0) await handle.write(`${batch.join('\n')}\n`);
  } finally {
    await handle.close();
  }
  return lines;
}

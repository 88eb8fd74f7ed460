import { open } from 'node:fs/promises';
import { cdxjEntries } from '../archive/index.ts';

/** Writes the CDXJ lines of `names` in `archive` to `file`, unsorted, 1,024 lines a write; returns how many. */
export async function writeCdxjLines(
  archive: string,
  names: readonly string[],
  file: string,
): Promise<number> {
  const handle = await open(file, 'w');
  let lines = 0;
  let batch: string[] = [];
  try {
    for await (const line of cdxjEntries(archive, names)) {
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

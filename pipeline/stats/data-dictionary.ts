import { readFile } from 'node:fs/promises';
import type { DictionaryTable } from './portal-data.ts';

/** docs/data-dictionary.md: the one place columns are described; the portal renders its tables. */
export const DICTIONARY_FILE = new URL('../../docs/data-dictionary.md', import.meta.url).pathname;

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/**
 * The column tables of the data dictionary, one per `## <file>` section whose table has the
 * columns column/type/meaning/example/since; the section's first paragraph is the intro.
 */
export function parseDictionary(markdown: string): DictionaryTable[] {
  const tables: DictionaryTable[] = [];
  for (const section of markdown.split(/^## /m).slice(1)) {
    const lines = section.split('\n');
    const header = lines.findIndex((l) => /^\| column \| type \| meaning \| example \| since \|/.test(l));
    if (header < 0) continue;
    const intro = lines
      .slice(1, header)
      .join('\n')
      .trim()
      .split(/\n\s*\n/)[0]
      .replace(/\n/g, ' ');
    const columns = [];
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith('|')) break;
      const [name, type, meaning, example, since] = cells(line);
      columns.push({ name, type, meaning, example, since });
    }
    tables.push({ file: lines[0].trim(), intro, columns });
  }
  return tables;
}

/** Reads and parses docs/data-dictionary.md. */
export async function readDictionary(): Promise<DictionaryTable[]> {
  return parseDictionary(await readFile(DICTIONARY_FILE, 'utf8'));
}

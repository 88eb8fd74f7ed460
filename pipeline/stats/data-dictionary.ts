import { readFile } from 'node:fs/promises';
import { ObservatoryError } from '../core/index.ts';
import type { DataTable, DictionaryTable } from './portal-data.ts';

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

/** The table of the dictionary's `## Definitions` section: every derived figure, defined once. */
export function parseDefinitions(markdown: string): DataTable {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Definitions\n'));
  const lines = section?.split('\n').filter((l) => l.startsWith('|')) ?? [];
  if (lines.length < 3)
    throw new ObservatoryError('internal', `${DICTIONARY_FILE}: no table in its Definitions section`);
  return { columns: cells(lines[0]), rows: lines.slice(2).map(cells) };
}

/** Reads and parses docs/data-dictionary.md: its column tables and its definitions. */
export async function readDictionary(): Promise<{ tables: DictionaryTable[]; definitions: DataTable }> {
  const markdown = await readFile(DICTIONARY_FILE, 'utf8');
  return { tables: parseDictionary(markdown), definitions: parseDefinitions(markdown) };
}

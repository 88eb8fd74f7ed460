import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExampleQuery } from './portal-data.ts';

/** docs/queries: the example queries researchers copy; the portal shows these very files (its history figures agree with them: test/stats/history.test.ts). */
export const QUERIES_DIR = new URL('../../docs/queries/', import.meta.url).pathname;

/** Every example query with the research question its leading comment asks. */
export async function exampleQueries(): Promise<ExampleQuery[]> {
  const files = (await readdir(QUERIES_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(join(QUERIES_DIR, file), 'utf8');
      const comment = sql
        .split('\n')
        .filter((l) => l.startsWith('--'))
        .map((l) => l.replace(/^--\s?/, ''))
        .join(' ');
      return { file, question: comment, sql };
    }),
  );
}

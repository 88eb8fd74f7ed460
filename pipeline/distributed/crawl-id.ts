import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory, ObservatoryError, writeFileAtomic } from '../core/index.ts';

/** The file in a run's crawl folder that names its crawl in the coordinator's database. */
export const CRAWL_ID_FILE = 'coordinator-crawl.json';

/**
 * The id of a run's crawl in the coordinator's database: the run's name and a random part, made
 * when the run first reaches the coordinator and kept in the run's crawl folder `dir`. The same run
 * resumes the same crawl (its folder travels with the snapshots root), and no other run ever shares
 * it: another observatory's run of the same name (another root, another kernel) on the same
 * database, or this root's run started afresh once its folder was set aside. Before, crawls were
 * named by the run alone, and a second observatory's coordinator published the first one's
 * documents as its own.
 */
export async function crawlIdOf(dir: string, name: string): Promise<string> {
  const file = join(dir, CRAWL_ID_FILE);
  if (existsSync(file)) return readCrawlId(file);
  makeDirectory(dir, 'the crawl folder');
  const id = `${name}@${randomUUID()}`;
  await writeFileAtomic(file, `${JSON.stringify({ crawl: id })}\n`);
  return id;
}

function readCrawlId(file: string): string {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    value = null;
  }
  const id = (value as { crawl?: unknown } | null)?.crawl;
  if (typeof id === 'string' && id !== '') return id;
  throw new ObservatoryError(
    'corrupt',
    `${file} does not name the run's crawl in the coordinator: delete it to crawl the run afresh`,
  );
}

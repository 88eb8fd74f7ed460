/**
 * `npm run bench [name ...]`: runs every test/bench/*.bench.ts (or the named ones) one after the
 * other, so that they do not compete for the two cores, and prints each one's table.
 * A benchmark module exports `default async function (): Promise<void>` and prints ratios
 * measured in one run plus peak memory.
 */
import { readdir } from 'node:fs/promises';

const dir = new URL('./', import.meta.url);
const wanted = process.argv.slice(2);
const files = (await readdir(dir))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.bench\.ts$/, '')))
  .sort();
if (files.length === 0) {
  process.stderr.write(`bench: no benchmark matches ${wanted.join(', ')}\n`);
  process.exit(2);
}
for (const file of files) {
  process.stdout.write(`\n## ${file.replace(/\.bench\.ts$/, '')}\n\n`);
  const mod = (await import(new URL(file, dir).href)) as { default: () => Promise<void> };
  await mod.default();
}
process.stdout.write(`\nnode ${process.version}, ${(await import('node:os')).cpus().length} cores\n`);

import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Path -> SHA-256 of every file under `dir`, sorted by path: two sites compared file for file. */
export async function siteTree(dir: string): Promise<Map<string, string>> {
  const files = (await readdir(dir, { withFileTypes: true, recursive: true })).filter((e) => e.isFile());
  const out = new Map<string, string>();
  for (const f of files) {
    const path = join(f.parentPath, f.name);
    out.set(
      relative(dir, path),
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    );
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

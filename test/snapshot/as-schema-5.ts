/**
 * A published folder turned into what schema 5 published: its tables' metadata saying version 5,
 * and its index as the plain index.cdxj in place of the ZipNum pair, manifest and SHA256SUMS to
 * match. What folders published before schema 6 look like, for the tests that read them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { openDuckDb, sqlString } from '../../pipeline/snapshot/index.ts';
import { relist } from './relist.ts';

const TABLES = ['documents', 'quads', 'redirects', 'changes', 'schedule', 'delta'].map((t) => `${t}.parquet`);

/** Rewrites `folder` in place as schema 5; returns its index's lines (the text of index.cdxj). */
export async function asSchema5(folder: string): Promise<string> {
  const session = await openDuckDb();
  try {
    for (const name of TABLES) {
      const file = join(folder, name);
      await session.connection.run(`COPY (SELECT * FROM read_parquet(${sqlString(file)})) TO ${sqlString(`${file}.v5`)}
        (FORMAT parquet, COMPRESSION zstd, KV_METADATA {observatory_schema_version: '5'})`);
      await cp(`${file}.v5`, file);
      await rm(`${file}.v5`);
    }
  } finally {
    session.close();
  }
  const lines = gunzipSync(readFileSync(join(folder, 'index.cdx.gz'))).toString();
  writeFileSync(join(folder, 'index.cdxj'), lines);
  await rm(join(folder, 'index.cdx.gz'));
  await rm(join(folder, 'index.idx'));
  const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'));
  manifest.schemaVersion = 5;
  manifest.files = manifest.files
    .filter((f: { name: string }) => f.name !== 'index.idx')
    .map((f: { name: string }) => (f.name === 'index.cdx.gz' ? { ...f, name: 'index.cdxj' } : f));
  writeFileSync(join(folder, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const sums = readFileSync(join(folder, 'SHA256SUMS'), 'utf8')
    .replace(/^.* {2}index\.idx\n/m, '')
    .replace('  index.cdx.gz\n', '  index.cdxj\n');
  writeFileSync(join(folder, 'SHA256SUMS'), sums);
  relist(folder, [...TABLES, 'index.cdxj']);
  return lines;
}

import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readManifest } from '../../pipeline/snapshot/index.ts';
import { publishWeek, source, WEEK1, WEEK2, week1, week2 } from './sample-crawl.ts';

/** A manifest that names a file outside its folder: refused by every reader, and by a publish that builds on it. */
test('a manifest naming ../../../../etc/passwd is corrupt, and no snapshot is published on top of its folder', async () => {
  const root = await mkdtemp(join(tmpdir(), 'forged-manifest-'));
  try {
    await publishWeek(root, WEEK1, source(week1()));
    const path = join(root, '2026-11-16', 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8'));
    manifest.files.push({ name: '../../../../etc/passwd', bytes: 1, sha256: '0'.repeat(64) });
    await writeFile(path, JSON.stringify(manifest));
    const corrupt = (e: Error & { code?: string }) =>
      e.code === 'corrupt' && /not a plain file name/.test(e.message);
    await assert.rejects(readManifest(join(root, '2026-11-16')), corrupt);
    await assert.rejects(publishWeek(root, WEEK2, source(week2())), corrupt);
    assert.ok(!(await readdir(root)).includes('2026-11-23'), 'nothing published');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a publish compares with nothing it cannot trust: an earlier table changed after publishing stops it (corrupt)', async () => {
  const root = await mkdtemp(join(tmpdir(), 'forged-table-'));
  try {
    await publishWeek(root, WEEK1, source(week1()));
    await appendFile(join(root, '2026-11-16', 'documents.parquet'), 'x');
    await assert.rejects(publishWeek(root, WEEK2, source(week2())), (e: Error & { code?: string }) => {
      return e.code === 'corrupt' && /documents\.parquet has \d+ bytes/.test(e.message);
    });
    assert.ok(!(await readdir(root)).includes('2026-11-23'), 'nothing published');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { publishWeek, record, source, WEEK1, WEEK2, week2 } from './sample-crawl.ts';

/** A network outage: every fetch of the week failed, so the week has documents and no statement. */
test('a week in which every fetch failed publishes a snapshot that verifies, and the next week publishes on it', async () => {
  const root = await mkdtemp(join(tmpdir(), 'empty-week-'));
  try {
    const failed = ['a', 'b', 'c'].map((p) => ({
      record: record(`http://example.org/${p}`, WEEK1 + 60_000, {
        status: null,
        error: 'refused',
        errorMessage: 'connect ECONNREFUSED',
        contentType: null,
        format: null,
        bytes: 0,
        contentSha256: null,
        headers: {},
      }),
      statements: [],
    }));
    const outage = await publishWeek(root, WEEK1, source(failed));
    assert.equal(outage.manifest.counts.statements, 0);
    await verifySnapshot(outage.folder);
    const next = await publishWeek(root, WEEK2, source(week2()));
    await verifySnapshot(next.folder);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

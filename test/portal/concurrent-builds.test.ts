import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildPortal } from '../../pipeline/portal/index.ts';
import { publishSampleWeeks } from '../snapshot/sample-crawl.ts';

// Astro writes prerender chunks under its working folder when the output lies elsewhere; builds
// that shared site/ as working folder overwrote each other's chunks ("Cannot find module
// .../.prerender/chunks/...") whenever two ran at once, as two test files or two cron jobs do.
test('three portal builds at once, into three folders, all succeed', async () => {
  const work = await mkdtemp(join(tmpdir(), 'portal-concurrent-'));
  try {
    const root = join(work, 'snapshots');
    await publishSampleWeeks(root);
    const outs = [0, 1, 2].map((i) => join(work, `site-${i}`));
    await Promise.all(outs.map((out, i) => buildPortal({ root, out, dataDir: join(work, `data-${i}`) })));
    for (const out of outs) assert.ok(existsSync(join(out, 'index.html')), `${out}/index.html`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});

/**
 * `--product-token`: a crawl under the operator's token sends it in the User-Agent and obeys the
 * robots.txt groups that name it, not those naming ours, as the simulated Web's server saw the
 * requests; the snapshot's manifest records the token, and the portal's About page shows it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PRODUCT_TOKEN, userAgentFor } from '../../pipeline/core/index.ts';
import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { computePortalData, statsOptions } from '../../pipeline/stats/index.ts';
import { crawlSim, planFor, simConfig } from '../crawl/sim-crawl.ts';
import { CLI, runCli, snapshotCliArgs } from './cli-process.ts';

const NOW = '2026-01-05T00:00:00Z';
/** robots.txt: `User-agent: LinkedDataObservatory / Disallow: /`, and `User-agent: * / Allow: /`. */
const BLOCKS_OURS = 'http://token-block.robots-lab.org/doc';
/** robots.txt: `User-agent: Googlebot / User-agent: BadBot / Disallow: /`, and `*` disallows /private/ only. */
const BLOCKS_BADBOT = 'http://other-token.robots-lab.org/doc';
const TOKEN = 'BadBot';

let sim: SimWeb;

before(async () => {
  sim = await startSimWeb({ seed: 3, docs: 50, plds: 10, latencyScale: 0, faults: 0, now: Date.parse(NOW) });
});

after(() => sim.close());

/** The requests the server received, as `host path` lines, and the User-Agents they carried. */
function seen(log: readonly RequestLogEntry[]) {
  return {
    requests: log.map((e) => `${e.host} ${e.path}`).sort(),
    userAgents: [...new Set(log.map((e) => e.userAgent))],
  };
}

test('a snapshot under --product-token BadBot sends it and obeys the BadBot group, not ours', async () => {
  const work = mkdtempSync(join(tmpdir(), 'product-token-'));
  const kernel = join(work, 'kernel.txt');
  writeFileSync(kernel, `${BLOCKS_OURS}\n${BLOCKS_BADBOT}\n`);
  const out = join(work, 'snapshots');
  sim.clearRequestLog();
  const run = await runCli([
    ...snapshotCliArgs({ kernel, out, now: NOW, resolve: sim.resolveRule }),
    '--delay',
    '0.005',
    '--adaptive-rounds',
    '0',
    '--product-token',
    TOKEN,
  ]);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(seen(sim.requestLog()), {
    requests: [
      'other-token.robots-lab.org /robots.txt',
      'token-block.robots-lab.org /doc',
      'token-block.robots-lab.org /robots.txt',
    ],
    userAgents: [userAgentFor(TOKEN)],
  });

  const manifest = JSON.parse(readFileSync(join(out, '2026-01-05', 'manifest.json'), 'utf8'));
  assert.equal(manifest.config.productToken, TOKEN);
  assert.equal(manifest.config.userAgent, userAgentFor(TOKEN));

  const data = await computePortalData(statsOptions({ root: out, dataDir: join(work, 'data') }));
  assert.equal(data.crawler.snapshot, '2026-01-05');
  assert.equal(data.crawler.productToken, TOKEN);
  assert.equal(data.crawler.userAgent, userAgentFor(TOKEN));
});

test('the same URLs crawled under our own token: the other way round', async () => {
  sim.clearRequestLog();
  await crawlSim(simConfig(sim, { delayMs: 5 }), planFor([BLOCKS_OURS, BLOCKS_BADBOT], 0));
  assert.deepEqual(seen(sim.requestLog()), {
    requests: [
      'other-token.robots-lab.org /doc',
      'other-token.robots-lab.org /robots.txt',
      'token-block.robots-lab.org /robots.txt',
    ],
    userAgents: [userAgentFor(PRODUCT_TOKEN)],
  });
});

test('--product-token refuses what RFC 9309 does not allow in a product token, with invalid_input', () => {
  for (const bad of ['Bad Bot', 'BadBot2', 'BadBot/1.0', '']) {
    const r = spawnSync(process.execPath, [CLI, 'snapshot', '--product-token', bad], { encoding: 'utf8' });
    assert.equal(r.status, 2, bad);
    assert.match(
      r.stderr,
      /^observatory: --product-token: expected a product token .*\[invalid_input\]\n$/,
      bad,
    );
  }
});

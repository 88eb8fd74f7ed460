import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  clockStartingAt,
  crawlConfig,
  parseResolveRule,
  silentLogger,
  systemClock,
} from '../../pipeline/core/index.ts';
import { createCrawlTools, readJournalDocuments, runCrawl } from '../../pipeline/crawl/index.ts';
import { CLI } from '../commands/cli-process.ts';
import { startServer } from '../web/http-server.ts';

/**
 * Issue #13, item 5: `--now` took anything that began with a date (`2026-11-16 junk` published as
 * 2026-06-11, February 30 rolled over to March), and a time before 1970 never finished: the
 * politeness wait overflowed Node's timer, which then fired at once, in a loop deaf to SIGTERM.
 */

/** Collects the process warnings `fn` causes (a TimeoutOverflowWarning is one). */
async function warningsDuring(fn: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const listener = (w: Error) => warnings.push(w.name);
  process.on('warning', listener);
  try {
    await fn();
    // warnings are emitted on the next tick
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return warnings;
}

test('--now takes exact instants only: one line naming what was expected and what was given, exit 2', () => {
  const kernel = join(mkdtempSync(join(tmpdir(), 'now-')), 'kernel.txt');
  writeFileSync(kernel, 'http://now.example/a\n');
  const out = mkdtempSync(join(tmpdir(), 'now-out-'));
  const cases: [string[], string][] = [
    [['snapshot', '--kernel', kernel, '--out', out], '2026-11-16 junk'],
    [['snapshot', '--kernel', kernel, '--out', out], '2026-02-30T00:00:00Z'],
    [['snapshot', '--kernel', kernel, '--out', out], '1969-07-20T20:17:40Z'],
    [['tick', '--out', out], '2026-11-16T10:30:00'],
    [['expand', '--seeds', kernel, '--kernel', join(out, 'k.txt'), '--out', out], '2150-01-01'],
  ];
  for (const [command, now] of cases) {
    // spawnSync is safe: the option is refused before anything is fetched
    const r = spawnSync(process.execPath, [CLI, ...command, '--now', now], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(r.status, 2, `${command[0]} --now ${now}: ${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0].includes(`--now: expected an ISO 8601 instant`), lines[0]);
    assert.ok(lines[0].includes(`got ${JSON.stringify(now)}`), lines[0]);
  }
});

test('a sleep longer than a timer holds neither warns nor ends early, and still aborts', async () => {
  const stop = new AbortController();
  let ended = false;
  const warnings = await warningsDuring(async () => {
    const long = systemClock
      .sleep(2 ** 31 + 10_000, stop.signal)
      .then(() => {
        ended = true;
      })
      .catch((reason) => reason);
    // an overflowing timer fires after 1 ms; whatever the load, 100 ms of sleep comes after that
    await systemClock.sleep(100);
    stop.abort('stopped');
    assert.equal(await long, 'stopped');
  });
  assert.equal(ended, false, 'the long sleep did not end by itself');
  assert.deepEqual(warnings, []);
});

test('a crawl on a clock before 1970 finishes, politely, without a timer overflow', async () => {
  const server = await startServer((req, res) => {
    // a chain of four documents; everything else (robots.txt, the predicate's document) is 404
    if (!/^old\.example/.test(req.headers.host ?? '') || !/^\/\d$/.test(req.url ?? '')) {
      return void res.writeHead(404).end();
    }
    const n = Number(req.url?.slice(1));
    const next = n < 3 ? ` <http://old.example/${n + 1}>` : ' "end"';
    res
      .writeHead(200, { 'content-type': 'text/turtle' })
      .end(`<http://old.example/${n}> <http://p.example/p>${next} .`);
  });
  const config = crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${server.port}`)],
    allowPrivate: true,
    delayMs: 20,
  });
  const clock = clockStartingAt(Date.UTC(1960, 0, 1));
  const tools = createCrawlTools(config, clock);
  const dir = mkdtempSync(join(tmpdir(), 'before-1970-'));
  try {
    const warnings = await warningsDuring(async () => {
      const result = await runCrawl({
        plan: {
          seeds: ['http://old.example/0'],
          maxDepth: 3,
          maxRounds: 5,
          maxDocuments: 10,
          segmentFor: () => 'kernel',
        },
        config,
        fetcher: tools.fetcher,
        dir,
        clock,
        logger: silentLogger,
      });
      assert.equal(result.complete, true);
    });
    assert.deepEqual(warnings, []);
    const docs = [];
    for await (const d of readJournalDocuments(dir)) docs.push(d.record);
    // every IRI is a link, so the predicate's document was asked for too
    assert.deepEqual(
      docs.filter((d) => d.pld === 'old.example').map((d) => [d.url, d.status]),
      [0, 1, 2, 3].map((n) => [`http://old.example/${n}`, 200]),
    );
    // politeness held on that clock too: request starts to one PLD at least the delay apart
    const starts = server.seen
      .filter((s) => s.pld === 'old.example' && s.path !== '/robots.txt')
      .map((s) => s.at);
    assert.equal(starts.length, 4);
    for (let i = 1; i < starts.length; i++) assert.ok(starts[i] - starts[i - 1] >= config.delayMs);
  } finally {
    await tools.close();
    await server.close();
  }
});

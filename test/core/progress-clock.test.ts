import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import {
  clockStartingAt,
  createProgress,
  formatProgress,
  manualClock,
  progressRates,
} from '../../pipeline/core/index.ts';

test('formatProgress shows done/total, rate and ETA', () => {
  const state = { done: 50, total: 150, extra: { plds: 7 } };
  const line = formatProgress('crawl', state, progressRates(state, 10_000));
  assert.equal(line, 'crawl 50/150  5.0/s  ETA 20s  plds 7');
});

test('a stage with statements shows their rate; a resumed stage counts only the work done since it started', () => {
  const state = { done: 150, total: 250, statements: 9000 };
  const rates = progressRates(state, 10_000, { done: 100, statements: 4000 });
  assert.equal(rates.perSecond, 5);
  assert.equal(rates.statementsPerSecond, 500);
  assert.equal(rates.etaSeconds, 20);
  assert.equal(
    formatProgress('snapshot', state, rates),
    'snapshot 150/250  5.0/s  9000 statements  500 statements/s  ETA 20s',
  );
});

test('progress goes to the JSON log at intervals with the same figures, and once at the end', () => {
  const clock = manualClock(0);
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l)) });
  const progress = createProgress('crawl', clock, { stream: null, logger, logIntervalMs: 30_000 });
  progress.update({ done: 0, total: 100, statements: 0 });
  clock.advance(10_000);
  progress.update({ done: 10, total: 100, statements: 500 });
  assert.equal(lines.length, 0, 'nothing before the interval');
  clock.advance(20_000);
  progress.update({ done: 30, total: 100, statements: 1500, extra: { round: 1 } });
  clock.advance(1_000);
  progress.finish({ done: 31, total: 31, statements: 1550 });
  assert.deepEqual(
    lines.map(
      ({ msg, stage, done, total, perSecond, statements, statementsPerSecond, etaSeconds, round }) => ({
        msg,
        stage,
        done,
        total,
        perSecond,
        statements,
        statementsPerSecond,
        etaSeconds,
        round,
      }),
    ),
    [
      {
        msg: 'progress',
        stage: 'crawl',
        done: 30,
        total: 100,
        perSecond: 1,
        statements: 1500,
        statementsPerSecond: 50,
        etaSeconds: 70,
        round: 1,
      },
      {
        msg: 'progress: done',
        stage: 'crawl',
        done: 31,
        total: 31,
        perSecond: 1,
        statements: 1550,
        statementsPerSecond: 50,
        etaSeconds: 0,
        round: undefined,
      },
    ],
  );
});

/** A stream that says it is a terminal, keeping what is written to it. */
function terminal(): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  return {
    stream: { isTTY: true, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream,
    written,
  };
}

test('on a terminal an update that comes too soon is drawn at the end of its 200 ms, not dropped', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const clock = manualClock(0);
  const { stream, written } = terminal();
  const progress = createProgress('portal', clock, { stream });
  progress.update({ done: 0, total: 3, extra: { phase: 'statistics' } });
  clock.advance(50);
  // the next phase starts 50 ms later, and then works for minutes without an update
  progress.update({ done: 1, total: 3, extra: { phase: 'pages' } });
  assert.equal(written.length, 1, 'not before its 200 ms');
  clock.advance(150);
  t.mock.timers.tick(150);
  assert.equal(written.length, 2);
  assert.match(written[1], /^\r\x1b\[2Kportal 1\/3 .*phase pages$/);
  progress.finish({ done: 3, total: 3, extra: { phase: 'done' } });
  assert.match(written[2], /portal 3\/3 .*phase done\n$/);
  // nothing is drawn after the end
  t.mock.timers.tick(1000);
  assert.equal(written.length, 3);
});

test('a clock started at --now reads that time and then advances', async () => {
  const start = Date.UTC(2026, 10, 16);
  const clock = clockStartingAt(start);
  assert.ok(Math.abs(clock.now() - start) < 50);
  await clock.sleep(20);
  assert.ok(clock.now() - start >= 15);
});

test('a manual clock advances only when told or slept', async () => {
  const clock = manualClock(100);
  await clock.sleep(50);
  clock.advance(10);
  assert.equal(clock.now(), 160);
});

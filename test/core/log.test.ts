/**
 * The logs a command writes to stderr come before the one line that ends a failed run
 * (commands/failure.ts writes it straight to stderr): a test of the distributed crawl read a
 * worker's warning after that line in a run beside CPU hogs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const LOG = new URL('../../pipeline/core/log.ts', import.meta.url).href;

test('log lines on stderr are written before the line a command writes after them', () => {
  // two lines in one turn of the event loop: an asynchronous writer holds the second until the
  // first is written, which needs a later turn, so it would come after the last line
  const script = `import { createLogger } from '${LOG}';
    const logger = createLogger({ level: 'info' });
    logger.warn('first');
    logger.warn('second');
    process.stderr.write('observatory: the end [unavailable]\\n');`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stderr.trimEnd().split('\n');
  assert.deepEqual(
    lines.map((l) => (l.startsWith('{') ? JSON.parse(l).msg : l)),
    ['first', 'second', 'observatory: the end [unavailable]'],
  );
});

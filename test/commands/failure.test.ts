import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { reportFailure } from '../../pipeline/commands/failure.ts';
import { ObservatoryError } from '../../pipeline/core/index.ts';

/**
 * Issue #31, item 7: every failure line names a code of docs/errors.md and keeps its cause. An error
 * nobody coded printed its message alone (`observatory: ENOSPC: no space left on device, write`).
 */

/** What reportFailure writes on stderr for `error`. */
function reported(error: unknown): string {
  const write = process.stderr.write;
  let written = '';
  process.stderr.write = ((chunk: string) => {
    written += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    reportFailure(error);
  } finally {
    process.stderr.write = write;
  }
  return written;
}

/** A real ENOSPC from Node's fs: /dev/full refuses every write with it. */
function diskFull(): Error {
  try {
    writeFileSync('/dev/full', 'x');
  } catch (error) {
    return error as Error;
  }
  throw new Error('/dev/full took a write');
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
  errno: -111,
  syscall: 'connect',
});

const cases: [string, unknown, string][] = [
  ['a bug', new TypeError('x is not a function'), 'observatory: x is not a function [internal]\n'],
  ['a thrown string', 'oops', 'observatory: oops [internal]\n'],
  ['a full disk (fs)', diskFull(), 'observatory: ENOSPC: no space left on device, write [io]\n'],
  [
    'a full disk (DuckDB, the text only)',
    new Error('IO Error: Could not write file "x.wal": No space left on device'),
    'observatory: IO Error: Could not write file "x.wal": No space left on device (ENOSPC) [io]\n',
  ],
  [
    'a read-only file system (DuckDB)',
    new Error('IO Error: Cannot open file "x": Read-only file system'),
    'observatory: IO Error: Cannot open file "x": Read-only file system (EROFS) [io]\n',
  ],
  ['a server gone', refused, 'observatory: connect ECONNREFUSED 127.0.0.1:5432 [unavailable]\n'],
  [
    'a coded error whose message leaves out its cause',
    new ObservatoryError('io', 'cannot write the snapshot', { cause: diskFull() }),
    'observatory: cannot write the snapshot (ENOSPC) [io]\n',
  ],
  [
    'a coded error that names its cause',
    new ObservatoryError('invalid_input', '--now: expected an instant'),
    'observatory: --now: expected an instant [invalid_input]\n',
  ],
];

for (const [name, error, line] of cases) {
  test(`failure line: ${name}`, () => assert.equal(reported(error), line));
}

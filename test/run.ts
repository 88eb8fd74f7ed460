/**
 * `npm test`: the whole suite (`node --test`, two files at a time) with the system temp directory
 * pointed at a folder of its own, removed when the run ends. Tests, the servers they start
 * (PostgreSQL, Chromium profiles) and DuckDB spill into temporary folders; many tests do not
 * remove theirs and a killed test cannot, and over many runs they filled the machine's /tmp.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = mkdtempSync(join(tmpdir(), 'observatory-tests-'));
// as open as /tmp itself: the PostgreSQL tests hand a folder in it to Debian's `postgres` user
chmodSync(root, 0o1777);
const child = spawn(process.execPath, ['--test', '--test-concurrency=2', 'test/**/*.test.ts'], {
  stdio: 'inherit',
  // every test file and every CLI it starts loads the pipeline: compiled once, read back after
  env: { ...process.env, TMPDIR: root, NODE_COMPILE_CACHE: join(root, 'node-compile-cache') },
});
// Ctrl-C reaches the test runner from the terminal too: wait for it to end, then clean up
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => {
  rmSync(root, { recursive: true, force: true });
  process.exitCode = code ?? 1;
});

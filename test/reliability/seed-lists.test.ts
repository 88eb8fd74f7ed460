import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MESSAGE_LIMIT, QUOTE_LIMIT, readUriList } from '../../pipeline/core/index.ts';
import { CLI } from '../commands/cli-process.ts';

/**
 * Issue #13, item 6: `http://a/x http://b/y` on one line of a seed list silently became one seed
 * `.../x%20http://b/y`, and a refused 10 MB line came back whole on stderr.
 */
function listFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'seeds-')), 'kernel.txt');
  writeFileSync(file, text);
  return file;
}

/** `observatory snapshot` over a kernel list; spawnSync is safe, the list is refused before any fetch. */
function snapshot(kernel: string, ...more: string[]) {
  const out = mkdtempSync(join(tmpdir(), 'seeds-out-'));
  return spawnSync(process.execPath, [CLI, 'snapshot', '--kernel', kernel, '--out', out, ...more], {
    encoding: 'utf8',
    timeout: 120_000,
  });
}

test('two URIs on one line are refused with the line number, not merged into one seed', () => {
  for (const gap of [' ', '\t', '\u00a0']) {
    const kernel = listFile(`# kernel\nhttp://a.example/x\nhttp://a.example/y${gap}http://b.example/z\n`);
    const r = snapshot(kernel);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.ok(
      r.stderr.includes(
        `${kernel}:3: expected one http(s) URI a line (no whitespace inside), got ${JSON.stringify(`http://a.example/y${gap}http://b.example/z`)}`,
      ),
      r.stderr,
    );
  }
});

test('a comment after the URI is still a comment', async () => {
  const list = listFile('http://a.example/x   # the first\n\thttp://b.example/y\t\n');
  assert.deepEqual(await readUriList(list), ['http://a.example/x', 'http://b.example/y']);
});

test('a refused 10 MB line is quoted in at most a few hundred characters', () => {
  const huge = `http://a.example/${'x'.repeat(10_000_000)} junk`;
  const r = snapshot(listFile(`http://a.example/ok\n${huge}\n`));
  assert.equal(r.status, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.ok(r.stderr.length < QUOTE_LIMIT + 400, `${r.stderr.length} characters on stderr`);
  assert.match(r.stderr, /kernel\.txt:2: expected one http\(s\) URI a line .*xxx… \(10000024 characters\)/);
});

test('an option value is quoted cut short too', () => {
  const r = snapshot(listFile('http://a.example/ok\n'), '--delay', `${'9'.repeat(100_000)}x`);
  assert.equal(r.status, 2);
  assert.ok(r.stderr.length < QUOTE_LIMIT + 400, `${r.stderr.length} characters on stderr`);
  assert.match(r.stderr, /^observatory: --delay: expected .*999… \(100003 characters\) \[invalid_input\]\n$/);
});

test("commander's own usage errors (an unknown option, a wrong choice) are one line, cut short", () => {
  const kernel = listFile('http://a.example/ok\n');
  for (const args of [[`--${'y'.repeat(100_000)}`], ['--policy', 'y'.repeat(100_000)]]) {
    const r = snapshot(kernel, ...args);
    assert.equal(r.status, 2);
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
    assert.ok(r.stderr.length < MESSAGE_LIMIT + 100, `${r.stderr.length} characters on stderr`);
    assert.match(r.stderr, /^error: .*yyy… \(\d+ characters\)\n$/);
  }
});

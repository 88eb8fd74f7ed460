/**
 * The README is a landing page (issue #32): short, sending readers into docs/, and its test
 * command is the one CI runs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

test('the README stays a landing page of under 200 lines, linking the current figures', () => {
  const readme = read('README.md');
  assert.ok(readme.split('\n').length < 200, 'README.md has grown past 200 lines: move details into docs/');
  for (const page of ['docs/benchmarks.md', 'docs/lifetime.md', 'docs/testing.md', 'docs/architecture.md']) {
    assert.ok(readme.includes(`](${page})`), `README.md does not link ${page}`);
  }
});

test(".ci/run runs exactly the README's test command", () => {
  const command = /^(npm test)\s+#/m.exec(read('README.md'))?.[1];
  assert.equal(command, 'npm test');
  const lines = read('.ci/run').trim().split('\n');
  assert.equal(lines.at(-1), command);
});

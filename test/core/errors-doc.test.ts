import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_CODES } from '../../pipeline/core/index.ts';

test('docs/errors.md lists exactly the error codes of the code, with their action and meaning', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z0-9_]+)` \| (\w+) \| (.+) \|$/gm)].map((m) => [m[1], m[2], m[3]]);
  assert.deepEqual(
    rows,
    Object.entries(ERROR_CODES).map(([code, { action, meaning }]) => [code, action, meaning]),
  );
});

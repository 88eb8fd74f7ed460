import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { gzipFile } from '../../pipeline/snapshot/parallel-gzip.ts';

test('a file gzipped as several members decompresses to its bytes, with zlib and with gzip(1)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'parallel-gzip-'));
  try {
    // about 29 MiB, so four members of 8 MiB: N-Quads-like lines and incompressible bytes
    const lines = Array.from({ length: 200_000 }, (_, i) => `<http://s/${i}> <http://p> "${i}" .\n`).join('');
    const input = Buffer.concat([
      Buffer.from(lines),
      randomBytes(4 << 20),
      Buffer.from(lines),
      randomBytes(9 << 20),
    ]);
    const source = join(dir, 'data.nq');
    const target = join(dir, 'data.nq.gz');
    await writeFile(source, input);
    await gzipFile(source, target, 6);
    assert.ok(gunzipSync(await readFile(target)).equals(input));
    assert.ok(execFileSync('gzip', ['-dc', target], { maxBuffer: 64 << 20 }).equals(input));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

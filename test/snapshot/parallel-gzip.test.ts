import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { gzipFile } from '../../pipeline/snapshot/parallel-gzip.ts';

/** Runs `body` with the paths of a source and a target in a temp folder of its own, removed after. */
async function inFolder(body: (source: string, target: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'parallel-gzip-'));
  try {
    await body(join(dir, 'data.nq'), join(dir, 'data.nq.gz'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('a file gzipped as several members decompresses to its bytes, with zlib and with gzip(1)', () =>
  inFolder(async (source, target) => {
    // about 29 MiB, so four members of 8 MiB: N-Quads-like lines and incompressible bytes
    const lines = Array.from({ length: 200_000 }, (_, i) => `<http://s/${i}> <http://p> "${i}" .\n`).join('');
    const input = Buffer.concat([
      Buffer.from(lines),
      randomBytes(4 << 20),
      Buffer.from(lines),
      randomBytes(9 << 20),
    ]);
    await writeFile(source, input);
    await gzipFile(source, target, 6, Promise.resolve());
    assert.ok(gunzipSync(await readFile(target)).equals(input));
    assert.ok(execFileSync('gzip', ['-dc', target], { maxBuffer: 64 << 20 }).equals(input));
  }));

test('an empty file (a week in which every fetch failed) gives a valid gzip file of nothing, not 0 bytes', () =>
  inFolder(async (source, target) => {
    await writeFile(source, '');
    await gzipFile(source, target, 6, Promise.resolve());
    assert.ok((await stat(target)).size > 0);
    assert.equal(gunzipSync(await readFile(target)).length, 0);
    assert.equal(execFileSync('gzip', ['-dc', target]).length, 0);
  }));

test('a file still being appended to is compressed as its bytes arrive, to every byte written', () =>
  inFolder(async (source, target) => {
    const pieces = Array.from({ length: 40 }, (_, i) =>
      i % 7 === 3
        ? randomBytes(1 << 20)
        : Buffer.from(`<http://s/${i}> <http://p> "${'x'.repeat(i)}" .\n`.repeat(9000)),
    );
    // the writer appends piece after piece while the compression runs, and the file does not exist at first
    const writing = (async () => {
      for (const piece of pieces) {
        await appendFile(source, piece);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await gzipFile(source, target, 6, writing);
    const input = Buffer.concat(pieces);
    assert.ok(gunzipSync(await readFile(target)).equals(input));
    assert.ok(execFileSync('gzip', ['-dc', target], { maxBuffer: 64 << 20 }).equals(input));
  }));

test('a writer that changes bytes already compressed fails the compression, and a failed writer is thrown', () =>
  inFolder(async (source, target) => {
    await writeFile(source, randomBytes(40 << 20));
    let finish: () => void = () => {};
    const writing = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const compressed = gzipFile(source, target, 1, writing);
    compressed.catch(() => {});
    // the first member is written once four are compressing: the file's first bytes were read
    while (((await stat(target).catch(() => null))?.size ?? 0) === 0)
      await new Promise((r) => setTimeout(r, 5));
    const handle = await open(source, 'r+');
    await handle.write(Buffer.from('changed'), 0, 7, 0);
    await handle.close();
    finish();
    await assert.rejects(compressed, /changed while it was compressed/);
    await assert.rejects(gzipFile(source, target, 1, Promise.reject(new Error('disk full'))), /disk full/);
  }));
